# CSV of udmabuf-bench results (tests/bench/run writes them: the program's
# columns with the arch in front) -> Markdown, one table per benchmark.
#
#   awk -F, -f tests/bench/table.awk build/bench/results-amd64.csv
#
# The "target" column is judged on the median: "ratio<=X" against the
# ratio, "value<=X" against the udmabuf time in ns.

function num(s) { return s + 0 }

# Three significant digits in a fitting unit.
function sig(v) {
	if (v >= 100)
		return sprintf("%.0f", v)
	if (v >= 10)
		return sprintf("%.1f", v)
	return sprintf("%.2f", v)
}

function t(ns) {
	if (ns == "")
		return "–"
	ns = num(ns)
	if (ns < 1e3)
		return sig(ns) " ns"
	if (ns < 1e6)
		return sig(ns / 1e3) " µs"
	if (ns < 1e9)
		return sig(ns / 1e6) " ms"
	return sig(ns / 1e9) " s"
}

function size(b) {
	b = num(b)
	if (b == 0)
		return ""
	if (b % 1048576 == 0)
		return (b / 1048576) " MiB"
	if (b % 1024 == 0)
		return (b / 1024) " KiB"
	return b " B"
}

function ratio(r) {
	if (r == "")
		return "–"
	r = num(r)
	if (r < 10)
		return sprintf("%.3f", r)
	return sig(r)
}

function spread(med, lo, hi, fmt) {
	if (med == "")
		return "–"
	if (fmt == "t")
		return t(med) " (" t(lo) "–" t(hi) ")"
	return "**" ratio(med) "** (" ratio(lo) "–" ratio(hi) ")"
}

function target(tg, r, v,    op, lim, met, shown) {
	if (tg == "")
		return ""
	if (tg ~ /^ratio<=/) {
		lim = substr(tg, 8) + 0
		shown = "≤ " lim
		if (r == "")
			return shown
		met = num(r) <= lim
	} else if (tg ~ /^ratio>=/) {
		lim = substr(tg, 8) + 0
		shown = "≥ " lim
		if (r == "")
			return shown
		met = num(r) >= lim
	} else if (tg ~ /^value<=/) {
		lim = substr(tg, 8) + 0
		shown = "≤ " t(lim)
		if (v == "")
			return shown
		met = num(v) <= lim
	} else {
		return tg
	}
	return shown (met ? " ✓" : " ✗")
}

BEGIN {
	title["check"] = "1. check_buf and clear_buf through the mapping (baseline: the same loops on malloc'ed memory)"
	title["rw"] = "2. read()/write() of the whole buffer (baseline: pread/pwrite of a tmpfs file of the same size)"
	title["mmap"] = "3. mmap + first touch of every page of the largest buffer (baseline: anonymous mmap with MAP_POPULATE)"
	title["sync"] = "4. Cache synchronisation (baseline: a null system call, getppid())"
	title["cycle"] = "5. create → enable → delete cycles"
	title["scale"] = "6. Scaling with the number of buffers alive"
	title["calib"] = "Calibration primitives"
}

NR == 1 {
	# header: arch,group,test,...
	next
}

{
	arch = $1; group = $2; test = $3; variant = $4
	if (group == "calib" && !with_calib)
		next
	if (group != last) {
		if (last != "")
			print ""
		print "#### " title[group]
		print ""
		print "| benchmark | size | udmabuf: median (min–max) | baseline: median (min–max) | ratio: median (min–max) | target | note |"
		print "|---|---|---|---|---|---|---|"
		last = group
	}
	name = test (variant != "" ? ", " variant : "")
	note = $18
	gsub(/ us/, " µs", note)
	base = $10 (($11 != "") ? ": " spread($11, $12, $13, "t") : "")
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, size($5),
		spread($7, $8, $9, "t"), base, spread($14, $15, $16, "r"),
		target($17, $14, $7), note
}

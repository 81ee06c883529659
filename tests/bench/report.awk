# CSV of udmabuf-bench results (tests/bench/run writes them: the program's
# columns with the arch in front) -> what tests/bench/run shows:
#
#   awk -F, -f tests/bench/report.awk results-amd64.csv
#       Markdown, one table per group (results-ARCH.md)
#   awk -F, -v out=targets -f tests/bench/report.awk results-amd64.csv ...
#       the rows with a target, a column per file (targets.md)
#   awk -F, -v out=calib -f tests/bench/report.awk results-host.csv ...
#       the calib rows' fastest times, the host's against each guest's
#       (calibration.md)
#   awk -F, -v out=chart -f tests/bench/report.awk results-amd64.csv
#       tab-separated data for chart.gp, one line per measured ratio
#       (calibration rows left out):
#         index ratio ratio_min ratio_max target colour label label_x lo hi
#       where lo and hi take in the whisker and the target mark
#
# Columns: 1 arch, 2 group, 3 test, 4 variant, 5 size, 6 samples, 7-9 the
# median, min and max ns, 10 baseline, 11-13 its ns, 14-16 the ratio's,
# 17 target, 18 note.  A target is judged on the median: "ratio<=X" and
# "ratio>=X" against the ratio, "value<=X" against the udmabuf time in ns.

function num(s) { return s + 0 }

# Three significant digits in a fitting unit.
function sig(v) {
	if (v >= 100)
		return sprintf("%.0f", v)
	if (v >= 10)
		return sprintf("%.1f", v)
	return sprintf("%.2f", v)
}

function t(ns,    i, u) {
	if (ns == "")
		return "–"
	for (ns = num(ns); ns >= 1e3 && i < 3; i++)
		ns /= 1e3
	split("ns µs ms s", u, " ")
	return sig(ns) " " u[i + 1]
}

function size(b,    i, u) {
	if (num(b) == 0)
		return ""
	for (b = num(b); b % 1024 == 0 && i < 2; i++)
		b /= 1024
	split("B KiB MiB", u, " ")
	return b " " u[i + 1]
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

# The target tg as a limit: "≤ 1.02", "≥ 0.5", "≤ 1.00 s".
function limit(tg) {
	if (tg ~ /^ratio/)
		return (tg ~ /^ratio>=/ ? "≥ " : "≤ ") num(substr(tg, 8))
	return "≤ " t(substr(tg, 8))
}

# " ✓" or " ✗" for ratio r and udmabuf time v; "" if what tg judges is missing.
function mark(tg, r, v,    x) {
	x = tg ~ /^ratio/ ? r : v
	if (x == "")
		return ""
	if (tg ~ /^ratio>=/)
		return num(x) >= num(substr(tg, 8)) ? " ✓" : " ✗"
	return num(x) <= num(substr(tg, 8)) ? " ✓" : " ✗"
}

BEGIN {
	title["large"] = "7. Large buffers, dma_mask 64 (baselines: MemFree, and populating anonymous memory)"
	title["check"] = "1. check_buf and clear_buf through the mapping (baseline: the same loops on malloc'ed memory)"
	title["rw"] = "2. read()/write() of the whole buffer (baseline: pread/pwrite of a tmpfs file of the same size)"
	title["mmap"] = "3. mmap + first touch of every page of the largest buffer (baseline: anonymous mmap with MAP_POPULATE)"
	title["sync"] = "4. Cache synchronisation (baseline: a null system call, getppid())"
	title["cycle"] = "5. create → enable → delete cycles"
	title["scale"] = "6. Scaling with the number of buffers alive"
	colour["check"] = 1; colour["rw"] = 2; colour["mmap"] = 3
	colour["sync"] = 4; colour["cycle"] = 5; colour["scale"] = 6
}

# The header, and the rows of each output.
FNR == 1 { next }
out == "" && $2 != "calib" { table() }
out == "targets" && $17 != "" { targets() }
out == "calib" && $2 == "calib" { calib() }
out == "chart" && $2 != "calib" && $14 != "" { chart() }

END {
	if (out == "targets")
		grid_end("benchmark | target", "")
	if (out == "calib")
		grid_end("primitive | this host", " guest (× host)")
}

function table(    name, note, base, tg) {
	if ($2 != last) {
		if (last != "")
			print ""
		print "#### " title[$2]
		print ""
		print "| benchmark | size | udmabuf: median (min–max) | baseline: median (min–max) | ratio: median (min–max) | target | note |"
		print "|---|---|---|---|---|---|---|"
		last = $2
	}
	name = $3 ($4 != "" ? ", " $4 : "")
	note = $18
	gsub(/ us/, " µs", note)
	base = $10 (($11 != "") ? ": " spread($11, $12, $13, "t") : "")
	tg = $17 ~ /^(ratio<=|ratio>=|value<=)/ ? limit($17) mark($17, $14, $7) : $17
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, size($5),
		spread($7, $8, $9, "t"), base, spread($14, $15, $16, "r"), tg, note
}

# targets.md and calibration.md: a row per key, in the order first seen,
# its first cells first[key]; a column per architecture, in the order of
# their first row, the cells val[key, arch] (no arch: only the row).
function grid(key, cells, arch, cell) {
	if (!(key in first)) {
		order[nk++] = key
		first[key] = cells
	}
	if (arch == "")
		return
	if (!(arch in seen)) {
		seen[arch] = 1
		arches[na++] = arch
	}
	val[key, arch] = cell
}

function grid_end(head, suffix,    line, sep, i, k) {
	line = "| " head " |"
	sep = "|---|---|"
	for (i = 0; i < na; i++) {
		line = line " " arches[i] suffix " |"
		sep = sep "---|"
	}
	print line
	print sep
	for (k = 0; k < nk; k++) {
		line = "| " first[order[k]] " |"
		for (i = 0; i < na; i++)
			line = line " " (((order[k], arches[i]) in val) ? val[order[k], arches[i]] : "–") " |"
		print line
	}
}

# A row per benchmark with a target.
function targets(    key, cell) {
	key = $3 ", " $4
	if ($2 == "check")
		key = key ", " size($5)
	cell = ($17 ~ /^value/ ? t($7) : ratio($14)) mark($17, $14, $7)
	if ($2 == "mmap" && $14 != "")
		cell = cell " (" size($5) ")"
	grid(key, key " | " ($17 ~ /^ratio/ ? "ratio " : "") limit($17), $1, cell)
}

# The fastest time of each primitive on the host (the first file) and on
# each guest.
function calib() {
	if ($1 == "host") {
		host[$3] = $8
		grid($3, $3 " | " t($8))
	} else if ($3 in host && host[$3] > 0)
		grid($3, $3 " | " t(host[$3]), $1, sprintf("%s (%.1f×)", t($8), $8 / host[$3]))
}

function chart(    tg, label, lo, hi) {
	tg = $17 ~ /^ratio<=/ ? num(substr($17, 8)) : "NaN"
	label = $3 ($4 != "" ? ", " $4 : "")
	if (($2 == "check" || $2 == "mmap") && size($5) != "")
		label = label ", " size($5)
	if ($2 == "scale" || $2 == "mmap")
		label = label " (vs " $10 ")"
	gsub(/"/, "", label)
	lo = (tg != "NaN" && tg < $15 + 0) ? tg : $15
	hi = (tg != "NaN" && tg > $16 + 0) ? tg : $16
	OFS = "\t"
	# the value label goes beyond them
	print n++, $14, $15, $16, tg, colour[$2], label,
		($14 + 0 >= 1 ? hi * 1.15 : lo / 1.15), lo, hi
}

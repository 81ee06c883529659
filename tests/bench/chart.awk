# CSV of udmabuf-bench results -> tab-separated data for chart.gp, one line
# per measured ratio (calibration rows left out):
#   index ratio ratio_min ratio_max target colour label label_x
# and, on the last line, "# xmin xmax" (the range to plot, log scale).
#
#   awk -F, -f tests/bench/chart.awk build/bench/results-amd64.csv

function size(b) {
	b = b + 0
	if (b == 0)
		return ""
	if (b % 1048576 == 0)
		return ", " (b / 1048576) " MiB"
	return ", " (b / 1024) " KiB"
}

function widen(v) {
	if (v <= 0)
		return
	if (v < lo)
		lo = v
	if (v > hi)
		hi = v
}

BEGIN {
	OFS = "\t"
	colour["check"] = 1; colour["rw"] = 2; colour["mmap"] = 3
	colour["sync"] = 4; colour["cycle"] = 5; colour["scale"] = 6
	lo = 1; hi = 1
}

NR == 1 || $2 == "calib" || $14 == "" { next }

{
	tg = "NaN"
	if ($17 ~ /^ratio<=/) {
		tg = substr($17, 8) + 0
		widen(tg)
	}
	label = $3 ($4 != "" ? ", " $4 : "")
	if ($2 == "check" || $2 == "mmap")
		label = label size($5)
	if ($2 == "scale" || $2 == "mmap")
		label = label " (vs " $10 ")"
	gsub(/"/, "", label)
	widen($15); widen($16)
	# where the value label goes: beyond the whisker and the target mark
	if ($14 + 0 >= 1)
		lx = ((tg != "NaN" && tg > $16 + 0) ? tg : $16) * 1.15
	else
		lx = ((tg != "NaN" && tg < $15 + 0) ? tg : $15) / 1.15
	print n++, $14, $15, $16, tg, colour[$2], label, lx
}

END {
	# room for the value labels next to the bars
	printf "# %g %g\n", lo / 4, hi * 4
}

# The rows of udmabuf-bench results that have a target, one Markdown table
# with a column per architecture (the files given, in that order).
#
#   awk -F, -f tests/bench/targets.awk results-amd64.csv results-arm64.csv

function ratio(r) {
	r = r + 0
	if (r < 0.1)
		return sprintf("%.3f", r)
	if (r >= 100)
		return sprintf("%.0f", r)
	if (r >= 10)
		return sprintf("%.1f", r)
	return sprintf("%.3f", r)
}

function secs(ns) {
	ns = ns + 0
	if (ns >= 1e9)
		return sprintf("%.2f s", ns / 1e9)
	return sprintf("%.0f ms", ns / 1e6)
}

function size(b) {
	b = b + 0
	if (b % 1048576 == 0)
		return (b / 1048576) " MiB"
	return (b / 1024) " KiB"
}

FNR == 1 { next }
$17 == "" { next }

{
	arch = $1
	if (!(arch in seen)) {
		seen[arch] = 1
		arches[na++] = arch
	}
	key = $3 ", " $4
	if ($2 == "check")
		key = key ", " size($5)
	if (!(key in tgt)) {
		# after the last row of the same group, else at the end
		pos = nk + 0
		for (k = nk - 1; k >= 0; k--)
			if (grp[order[k]] == $2) {
				pos = k + 1
				break
			}
		for (k = nk; k > pos; k--)
			order[k] = order[k - 1]
		order[pos] = key
		nk++
		tgt[key] = $17
		grp[key] = $2
	}
	lim = substr($17, 8) + 0
	if ($17 ~ /^ratio>=/) {
		if ($14 == "")
			cell = "–"
		else
			cell = ratio($14) (($14 + 0 >= lim) ? " ✓" : " ✗")
	} else if ($17 ~ /^ratio<=/) {
		if ($14 == "")
			cell = "–"
		else
			cell = ratio($14) (($14 + 0 <= lim) ? " ✓" : " ✗")
		if ($2 == "mmap")
			cell = cell " (" size($5) ")"
	} else {
		if ($7 == "")
			cell = "–"
		else
			cell = secs($7) (($7 + 0 <= lim) ? " ✓" : " ✗")
	}
	val[key, arch] = cell
}

END {
	line = "| benchmark | target |"
	sep = "|---|---|"
	for (i = 0; i < na; i++) {
		line = line " " arches[i] " |"
		sep = sep "---|"
	}
	print line
	print sep
	for (k = 0; k < nk; k++) {
		key = order[k]
		t = tgt[key]
		if (t ~ /^ratio<=/)
			t = "ratio ≤ " substr(t, 8)
		else if (t ~ /^ratio>=/)
			t = "ratio ≥ " substr(t, 8)
		else
			t = "≤ " secs(substr(t, 8))
		line = "| " key " | " t " |"
		for (i = 0; i < na; i++)
			line = line " " (((key, arches[i]) in val) ? val[key, arches[i]] : "–") " |"
		print line
	}
}

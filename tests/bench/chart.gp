# Horizontal bars of the ratios of one run of udmabuf-bench, on a log scale
# around 1: a bar to the left is faster than its baseline, to the right
# slower; whiskers are min–max, crosses the targets.
#
#   gnuplot -e "datafile='chart-amd64.dat'; outfile='bench-amd64.png'; \
#               heading='...'" chart.gp

set datafile separator "\t"
# The range: every whisker and target (a ratio of 0 aside) and 1, with
# room for the value labels.
stats datafile using ($9 > 0 ? $9 : 1):10 nooutput
nrows = STATS_records
xmin = (STATS_min_x < 1 ? STATS_min_x : 1) / 4
xmax = (STATS_max_y > 1 ? STATS_max_y : 1) * 4
set terminal pngcairo noenhanced size 1400, (nrows * 20 + 220) font "sans,10"
set output outfile
set title heading font "sans,13"
set logscale x
set xrange [xmin:xmax]
set yrange [nrows - 0.5 : -0.5]
set ytics nomirror scale 0 font "sans,9"
set xtics nomirror
set mxtics 10
set grid xtics
set xlabel "ratio = time with udmabuf / time of its baseline (log scale; left of 1: faster than the baseline)"
set key inside bottom left vertical box opaque samplen 2
set style fill solid 0.85 border rgb "#555555"
set arrow from 1, graph 0 to 1, graph 1 nohead lw 2 lc rgb "black" front
# The groups in the order of report.awk's colour numbers, and their colours.
groups = '"check/clear_buf" "read/write" "mmap + touch" "sync" "create/delete" "scaling"'
colours = "#4e79a7 #f28e2b #59a14f #e15759 #76b7b2 #b07aa1"
do for [i = 1:6] { set linetype i lc rgb word(colours, i) }

lower(r) = r < 1 ? r : 1
upper(r) = r < 1 ? 1 : r

plot \
	datafile using (sqrt($2)):1:(lower($2)):(upper($2)):($1 - 0.35):($1 + 0.35):6:ytic(7) \
		with boxxyerror lc variable notitle, \
	'' using 2:1:3:4 with xerrorbars pt 0 lc rgb "#333333" notitle, \
	'' using 5:1 with points pt 2 ps 1.4 lw 2 lc rgb "black" title "target", \
	'' using ($2 >= 1 ? $8 : 1/0):1:(sprintf("%.3g", $2)) \
		with labels left font "sans,8" notitle, \
	'' using ($2 < 1 ? $8 : 1/0):1:(sprintf("%.3g", $2)) \
		with labels right font "sans,8" notitle, \
	for [i = 1:6] keyentry with boxes lc i title word(groups, i)

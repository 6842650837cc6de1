# The squeal's branch of the reduced brake from bench/reduced_brake --branch DMU:
#   gnuplot -e "csv='reduced_brake_branch.csv'; png='brake-squeal-branch.png'" \
#     bench/reduced_brake_branch.gp
# Columns: mu, hz, amplitude_u, rms_un, rms_ut, max_multiplier, stable, event, secs,
# periods; two data blocks (up from the shot orbit, then down from it).
if (!exists("csv")) csv = 'reduced_brake_branch.csv'
if (!exists("png")) png = 'brake-squeal-branch.png'
set datafile separator ','
set terminal pngcairo size 1100,420 font ',10'
set output png
set multiplot layout 1,2
set xlabel 'friction coefficient mu'
set grid
# the 3556.6 Hz pair's threshold on the stability chart (docs/examples/brake-squeal.md)
set arrow 1 from 0.34973, graph 0 to 0.34973, graph 1 nohead dt 2 lc rgb 'gray40'
set label 1 'mu_c' at 0.34973, graph 0.95 offset 0.5,0 tc rgb 'gray40'
set key top left
set ylabel 'RMS of the monitored pin node (um)'
plot for [b=0:1] csv index b using 1:($4*1e6) with linespoints pt 7 ps 0.5 lc 1 \
       title (b == 0 ? 'normal' : ''), \
     for [b=0:1] csv index b using 1:($5*1e6) with linespoints pt 7 ps 0.5 lc 2 \
       title (b == 0 ? 'tangential' : ''), \
     csv using 1:($7 == 0 ? $5*1e6 : 1/0) with points pt 6 ps 1.2 lc rgb 'black' \
       title 'unstable (a multiplier outside the unit circle)'
set ylabel 'squeal frequency (Hz)'
set key top right
plot for [b=0:1] csv index b using 1:2 with linespoints pt 7 ps 0.5 lc 3 \
       title (b == 0 ? 'the orbit (1 / T)' : '')
unset multiplot

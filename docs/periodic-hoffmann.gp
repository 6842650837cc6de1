# The branch of limit cycles of Hoffmann's oscillator (docs/periodic.md), from the
# branch.csv that tests/periodic/test_hoffmann.c writes in its scratch directory:
#   FCD_TEST_TMPDIR=/tmp/h build/tests/periodic/test_hoffmann
#   gnuplot -e "csv='/tmp/h/branch.csv'" docs/periodic-hoffmann.gp
# Columns: mu, period, amplitude (y's half range), verdict, event, max_multiplier (the
# largest modulus among the non-trivial Floquet multipliers: below 1 attracting, above
# unstable, 1 on the center of small orbits at mu_c).
if (!exists("csv")) csv = 'branch.csv'
if (!exists("out")) out = 'docs/periodic-hoffmann.png'
set terminal pngcairo size 1000,420 font ',10'
set output out
set datafile separator ','
muc = 0.377633015797
set multiplot layout 1,2 title "Hoffmann's oscillator with a unilateral contact: limit cycles continued in mu (h = 2e-3)"
set grid
set xlabel 'friction coefficient mu'
set arrow 1 from muc, graph 0 to muc, graph 1 nohead dt 2
set label 1 'mu_c' at muc + 0.002, graph 0.93
set ylabel 'y half range'
set key top left
plot csv u 1:($6 < 0.999 ? $3 : 1/0) every ::1 w lp pt 7 ps 0.6 lw 2 t 'attracting', \
     '' u 1:($6 > 1.001 ? $3 : 1/0) every ::1 w lp pt 6 ps 0.6 lw 2 dt 3 t 'unstable', \
     '' u 1:($6 >= 0.999 && $6 <= 1.001 ? $3 : 1/0) every ::1 w p pt 2 ps 0.6 t 'neutral: the center at mu_c'
set ylabel 'period'
set key at graph 0.97, graph 0.55 right
plot csv u 1:($6 < 0.999 ? $2 : 1/0) every ::1 w lp pt 7 ps 0.6 lw 2 t 'attracting', \
     '' u 1:($6 > 1.001 ? $2 : 1/0) every ::1 w lp pt 6 ps 0.6 lw 2 dt 3 t 'unstable', \
     2*pi/1.095188943424 dt 2 lc rgb 'black' t '2 pi / omega_c'
unset multiplot

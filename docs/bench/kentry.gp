set terminal pngcairo size 900,560 font "DejaVu Sans,10"
set output "kentry.png"
set datafile separator ","
set title "cost against NMIs per kernel entry (/bin/kentry, 20000 Hz)"
set xlabel "sampling periods per read() (target NMIs per kernel entry)"
set ylabel "guest cycles per sample (NMI handler + deferred unwind)"
set logscale xy
set key top left box opaque
set grid
plot "kentry.csv" using 2:(strcol(3) eq "fp" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp", \
     "kentry.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp-deferred", \
     "kentry.csv" using 2:(strcol(3) eq "sframe" && strcol(15) ne "" ? $15 : NaN) with linespoints title "sframe", \
     "kentry.csv" using 2:(strcol(3) eq "stack-copy" && strcol(15) ne "" ? $15 : NaN) with linespoints title "stack-copy", \
     "kentry.csv" using 2:(strcol(3) eq "guess" && strcol(15) ne "" ? $15 : NaN) with linespoints title "guess"

set terminal pngcairo size 900,560 font "DejaVu Sans,10"
set output "rate.png"
set datafile separator ","
set title "workload slowdown against sample rate (/bin/chain 32)"
set xlabel "samples per second (Hz)"
set ylabel "workload slowdown against no sampling (%)"
set logscale xy
set key top left box opaque
set grid
plot "rate.csv" using 2:(strcol(3) eq "fp" && strcol(7) ne "" ? $7 : NaN) with linespoints title "fp", \
     "rate.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(7) ne "" ? $7 : NaN) with linespoints title "fp-deferred", \
     "rate.csv" using 2:(strcol(3) eq "sframe" && strcol(7) ne "" ? $7 : NaN) with linespoints title "sframe", \
     "rate.csv" using 2:(strcol(3) eq "stack-copy" && strcol(7) ne "" ? $7 : NaN) with linespoints title "stack-copy", \
     "rate.csv" using 2:(strcol(3) eq "guess" && strcol(7) ne "" ? $7 : NaN) with linespoints title "guess", \
     "rate.csv" using 2:(strcol(3) eq "eh-frame" && strcol(7) ne "" ? $7 : NaN) with linespoints title "eh-frame"

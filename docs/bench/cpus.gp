set terminal pngcairo size 900,560 font "DejaVu Sans,10"
set output "cpus.png"
set datafile separator ","
set title "cost against CPUs (N x /bin/chain 32 at once)"
set xlabel "CPUs (QEMU -smp, one /bin/chain each)"
set ylabel "guest cycles per sample (NMI handler + deferred unwind)"
set logscale xy
set key top left box opaque
set grid
plot "cpus.csv" using 2:(strcol(3) eq "fp" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp", \
     "cpus.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp-deferred", \
     "cpus.csv" using 2:(strcol(3) eq "sframe" && strcol(15) ne "" ? $15 : NaN) with linespoints title "sframe", \
     "cpus.csv" using 2:(strcol(3) eq "stack-copy" && strcol(15) ne "" ? $15 : NaN) with linespoints title "stack-copy", \
     "cpus.csv" using 2:(strcol(3) eq "guess" && strcol(15) ne "" ? $15 : NaN) with linespoints title "guess"

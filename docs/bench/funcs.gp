set terminal pngcairo size 900,560 font "DejaVu Sans,10"
set output "funcs.png"
set datafile separator ","
set title "cost against functions in the binary (/bin/funcs-N)"
set xlabel "generated functions N (SFrame FDEs = N + newlib's)"
set ylabel "guest cycles per sample (NMI handler + deferred unwind)"
set logscale xy
set key top left box opaque
set grid
plot "funcs.csv" using 2:(strcol(3) eq "fp" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp", \
     "funcs.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp-deferred", \
     "funcs.csv" using 2:(strcol(3) eq "sframe" && strcol(15) ne "" ? $15 : NaN) with linespoints title "sframe", \
     "funcs.csv" using 2:(strcol(3) eq "stack-copy" && strcol(15) ne "" ? $15 : NaN) with linespoints title "stack-copy", \
     "funcs.csv" using 2:(strcol(3) eq "guess" && strcol(15) ne "" ? $15 : NaN) with linespoints title "guess", \
     "funcs.csv" using 2:(strcol(3) eq "eh-frame" && strcol(15) ne "" ? $15 : NaN) with linespoints title "eh-frame", \
     "funcs.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(14) ne "" ? $14 : NaN) with linespoints title "fp-deferred, per unwind but the costliest", \
     "funcs.csv" using 2:(strcol(3) eq "sframe" && strcol(14) ne "" ? $14 : NaN) with linespoints title "sframe, per unwind but the costliest", \
     "funcs.csv" using 2:(strcol(3) eq "guess" && strcol(14) ne "" ? $14 : NaN) with linespoints title "guess, per unwind but the costliest", \
     "funcs.csv" using 2:(strcol(3) eq "eh-frame" && strcol(14) ne "" ? $14 : NaN) with linespoints title "eh-frame, per unwind but the costliest"

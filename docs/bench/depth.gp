set terminal pngcairo size 900,560 font "DejaVu Sans,10"
set output "depth.png"
set datafile separator ","
set title "cost against user stack depth (/bin/chain)"
set xlabel "chain depth (user frames = depth + 3)"
set ylabel "guest cycles per sample (NMI handler + deferred unwind)"
set logscale xy
set key top left box opaque
set grid
plot "depth.csv" using 2:(strcol(3) eq "fp" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp", \
     "depth.csv" using 2:(strcol(3) eq "fp-deferred" && strcol(15) ne "" ? $15 : NaN) with linespoints title "fp-deferred", \
     "depth.csv" using 2:(strcol(3) eq "sframe" && strcol(15) ne "" ? $15 : NaN) with linespoints title "sframe", \
     "depth.csv" using 2:(strcol(3) eq "stack-copy" && strcol(15) ne "" ? $15 : NaN) with linespoints title "stack-copy", \
     "depth.csv" using 2:(strcol(3) eq "guess" && strcol(15) ne "" ? $15 : NaN) with linespoints title "guess", \
     "depth.csv" using 2:(strcol(3) eq "eh-frame" && strcol(15) ne "" ? $15 : NaN) with linespoints title "eh-frame"

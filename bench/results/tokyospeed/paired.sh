#!/bin/bash
# paired, interleaved: main (base snapshot 6308ece) vs branch snapshot, CPU time
B=$1  # branch snapshot dir
OUT=/tmp/tokyospeed/paired
mkdir -p $OUT
PY=/work/main/.venv/bin/python
for r in 1 2; do
  for c in base $B; do
    d=/tmp/tokyospeed/$c; n=$(basename $c)
    (cd $d && OPENBLAS_NUM_THREADS=1 PYTHONPATH=$d nice -n 5 $PY bench/tokyo_loop.py --repeat 2 > $OUT/loop_${n}_r$r.json)
    (cd $d && OPENBLAS_NUM_THREADS=1 PYTHONPATH=$d nice -n 5 $PY bench/referee_pipeline.py --viewers 1 --json $OUT/pipe_${n}_r$r.json > $OUT/pipe_${n}_r$r.txt 2>&1)
    (cd $d && OPENBLAS_NUM_THREADS=1 PYTHONPATH=$d nice -n 5 /usr/bin/time -f "%U %S" $PY -m referee_app.cli eval match tokyo-highway --seeds 3,90 --camera 1280x720 --height 550 --tilt 40 --cameras 2 --json $OUT/eval_${n}_r$r.json > $OUT/eval_${n}_r$r.txt 2>&1)
    echo "$(date +%T) round $r $n done; load $(cut -d' ' -f1 /proc/loadavg)"
  done
done

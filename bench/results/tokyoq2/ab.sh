#!/bin/bash
# ab.sh "SEEDS..." MODE  (MODE: both = main then branch per seed, interleaved; branch = branch only)
# main: detached worktree /tmp/base_tokyoq2 (main 9b69a68); branch: detached worktree /tmp/tq2_branch
OUT=/work/wt/tokyoq2/bench/results/tokyoq2/per_seed
PY=/work/main/.venv/bin/python
TR=/work/main/bench/tokyo_trace.py  # was bench/results/tokyoq/trace.py, now bench/tokyo_trace.py
BR=$(cd /tmp/tq2_branch && git rev-parse --short HEAD)
for s in $1; do
  if [ "$2" = both ]; then
    (cd /tmp/base_tokyoq2 && PYTHONPATH=/tmp/base_tokyoq2 $PY $TR $s $OUT/main_$s.json >> $OUT/main.log 2>&1)
  fi
  [ -e $OUT/branch_${BR}_$s.json ] && continue
  (cd /tmp/tq2_branch && PYTHONPATH=/tmp/tq2_branch $PY $TR $s $OUT/branch_${BR}_$s.json >> $OUT/branch_$BR.log 2>&1)
done
echo "done $1 $2" >> $OUT/ab_done.log

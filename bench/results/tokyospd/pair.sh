#!/bin/bash
# pair.sh TAG SEED DIR: `eval match` of one seed (550/40, two cameras) on the code of the worktree DIR,
# every belief traced (trace_eval.py), /usr/bin/time of the whole process; writes /tmp/tokyospd/out/TAG_SEED.*
TAG=$1; S=$2; DIR=$3; HERE=$(cd "$(dirname "$0")" && pwd)
cd "$DIR" && TRACE=/tmp/tokyospd/out/${TAG}_$S.trace PYTHONPATH=$DIR nice -n 5 \
  /usr/bin/time -f "%U user %S sys %e wall %M KB" -o /tmp/tokyospd/out/${TAG}_$S.time \
  /work/main/.venv/bin/python "$HERE/trace_eval.py" eval match tokyo-highway --seeds "$S" --camera 1280x720 \
  --height 550 --tilt 40 --cameras 2 --json /tmp/tokyospd/out/${TAG}_$S.json > /tmp/tokyospd/out/${TAG}_$S.log 2>&1

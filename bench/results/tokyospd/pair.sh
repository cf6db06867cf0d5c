#!/bin/bash
# pair.sh TAG SEED CODEDIR: eval match one seed with traces, /usr/bin/time
TAG=$1; S=$2; DIR=$3
cd $DIR && TRACE=/tmp/tokyospd/out/${TAG}_$S.trace PYTHONPATH=$DIR nice -n 5 /usr/bin/time -f "%U user %S sys %e wall %M KB" -o /tmp/tokyospd/out/${TAG}_$S.time /work/main/.venv/bin/python /tmp/tokyospd/trace_eval.py eval match tokyo-highway --seeds $S --camera 1280x720 --height 550 --tilt 40 --cameras 2 --json /tmp/tokyospd/out/${TAG}_$S.json > /tmp/tokyospd/out/${TAG}_$S.log 2>&1

#!/bin/sh
# SPDX-License-Identifier: MIT
# reach_probe.sh KIND: the CPU count KIND reports (t_reach.sh): nproc,
# python (os.cpu_count()), node (os.cpus().length), or cluster (the number
# of node cluster workers forked, one per os.cpus() entry, that ran).
case $1 in
nproc) nproc ;;
python) "${PYTHON:-python3}" -c 'import os; print(os.cpu_count())' ;;
node) node -e 'console.log(require("os").cpus().length)' ;;
cluster) node "$(dirname "$0")/cpus_probe.js" cluster ;;
*) exit 2 ;;
esac

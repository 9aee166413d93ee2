# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""The vTC's classification accuracy against nDPI's ground truth, per protocol:
agreement and precision.

Replays the 371 real captures of tests/data/realdata/pcaps/ndpi/,
pcaps/ndpi-more/, pcaps/ndpi-tuning/ and pcaps/ndpi-heldout/ (the last never
tuned on; and their IPv6 and QinQ variants) through the vTC's reference
model, which the RTL equals frame for frame and counter for counter
(hdl/tests/test_region_vtc.py, tests/hdl/test_vtc_bridge_captures.py), and
prints, per folder, for the folders tuned on and for all of them, per
protocol: nDPI's flows, those the vTC gives the same class (agreement), the
flows the vTC puts in the class that nDPI judges and those nDPI names the same
(precision), guesses apart; then every disagreement, false positive or flow
the vTC cannot see, with the reason, and whether the goal (99 % agreement and
99 % precision per protocol, all folders) is met.  What it compares against:
nDPI's own verdicts (the `.out` files beside the captures, nDPI commit
3b1286a).  tests/hdl/test_vtc_accuracy.py asserts the first two folders'
agreement (>= 95 % per covered protocol) and the exact list of
disagreements and false positives.

Then the application names (tests/hdl/test_vtc_app_accuracy.py): per
application of the table, the flows whose application nDPI took from a name
in the table and those the vTC names the same (agreement), and the flows the
vTC names an application that nDPI judges and those nDPI names the same
(precision); the goal (95 % agreement, 99 % precision per application).
Names are the reference model's only: the RTL has no name matcher yet.

    .venv/bin/python benchmarks/vtc_accuracy.py
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import results  # noqa: E402
from tests.hdl import test_vtc_accuracy as accuracy  # noqa: E402
from tests.hdl import test_vtc_app_accuracy as applications  # noqa: E402


def main():
    for variant in accuracy.VARIANTS:
        for line in accuracy.describe(variant, accuracy.verdicts(variant)):
            print(line)
        if variant == accuracy.AS_CAPTURED:
            for line in accuracy.goals(accuracy.verdicts(variant)):
                print(line)
        print()
    for line in applications.describe(applications.verdicts()):
        print(line)


if __name__ == '__main__':
    with results.recorded('vtc_accuracy'):
        main()

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

"""How much of a reconfigurable region a module needs, and how much the region
has.

The budget of a region is read from its Vivado pblock constraints (the XDC
`resize_pblock ... -add {SLICE_X..Y..:SLICE_X..Y.. RAMB36_... DSP48_...}`
ranges), never typed in: 4 LUTs and 8 flip-flops per 7-series slice, one
block RAM per RAMB36 site, one DSP per DSP48 site.  A module's use is yosys'
`synth_xilinx -family xc7` estimate (hdl/yosys/synth_xc7.ys).  yosys is not
Vivado: the estimate is a pre-placement cell count, good for catching a
module that cannot fit, not for timing or final utilisation.
"""
import collections
import dataclasses
import json
import pathlib
import re
import shutil
import subprocess
import tempfile

import nova_fpga_devtools

ROOT = nova_fpga_devtools.SOURCE
SYNTH_SCRIPT = ROOT / 'hdl' / 'yosys' / 'synth_xc7.ys'

LUTS_PER_SLICE = 4
FFS_PER_SLICE = 8

_RESIZE = re.compile(
    r'^\s*resize_pblock\s+(?:\[get_pblocks\s+)?(\S+?)\]?\s+-add\s+\{([^}]*)\}',
    re.MULTILINE,
)
_RANGE = re.compile(
    r'^(SLICE|RAMB36|RAMB18|DSP48)_X(\d+)Y(\d+)(?::\1_X(\d+)Y(\d+))?$'
)

# LUTs each LUT-based cell occupies (an inverter is a LUT1; distributed RAM and
# shift registers live in LUTs)
_LUT_CELLS = {
    'INV': 1, 'LUT1': 1, 'LUT2': 1, 'LUT3': 1, 'LUT4': 1, 'LUT5': 1, 'LUT6': 1,
    'SRL16E': 1, 'SRLC16E': 1, 'SRLC32E': 1,
    'RAM32X1S': 1, 'RAM64X1S': 1, 'RAM128X1S': 2, 'RAM256X1S': 4,
    'RAM32X1D': 2, 'RAM64X1D': 2, 'RAM128X1D': 4, 'RAM32M': 4, 'RAM64M': 4,
}
_FF_CELLS = ('FDRE', 'FDSE', 'FDCE', 'FDPE', 'LDCE', 'LDPE')
_RAMB36_EQUIVALENT = {'RAMB36E1': 1.0, 'RAMB18E1': 0.5}
_DSP_CELLS = ('DSP48E1',)


class XdcError(ValueError):
    """A pblock constraint could not be understood."""


class SynthesisError(RuntimeError):
    """yosys is missing or rejected the design."""


@dataclasses.dataclass(frozen=True)
class Budget:
    """What one pblock offers, as the sets of sites it covers."""

    pblock: str
    sites: frozenset  # of (site type, x, y)

    def _count(self, site_type):
        return sum(1 for kind, _, _ in self.sites if kind == site_type)

    @property
    def slices(self):
        return self._count('SLICE')

    @property
    def luts(self):
        return self.slices * LUTS_PER_SLICE

    @property
    def ffs(self):
        return self.slices * FFS_PER_SLICE

    @property
    def ramb36(self):
        return self._count('RAMB36') or self._count('RAMB18') / 2

    @property
    def dsp48(self):
        return self._count('DSP48')

    def __str__(self):
        return '%s: %d slices = %d LUTs, %d FFs, %g RAMB36, %d DSP48' % (
            self.pblock,
            self.slices,
            self.luts,
            self.ffs,
            self.ramb36,
            self.dsp48,
        )


@dataclasses.dataclass(frozen=True)
class Usage:
    """A module's yosys estimate, in the units a budget has."""

    luts: int
    ffs: int
    ramb36: float
    dsp48: int
    cells: dict

    def __str__(self):
        return '%d LUTs, %d FFs, %g RAMB36, %d DSP48' % (
            self.luts,
            self.ffs,
            self.ramb36,
            self.dsp48,
        )


def _expand(site_range):
    match = _RANGE.match(site_range)
    if not match:
        raise XdcError('unsupported site range %r' % site_range)
    kind, x0, y0, x1, y1 = match.groups()
    x0, y0 = int(x0), int(y0)
    x1, y1 = (int(x1), int(y1)) if x1 is not None else (x0, y0)
    if x1 < x0 or y1 < y0:
        raise XdcError('reversed site range %r' % site_range)
    return {(kind, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}


def pblock_budgets(xdc_text):
    """Every pblock an XDC file resizes, as {pblock name: Budget}."""
    sites = collections.defaultdict(set)
    for pblock, ranges in _RESIZE.findall(xdc_text):
        for site_range in ranges.split():
            sites[pblock] |= _expand(site_range)
    if not sites:
        raise XdcError('no resize_pblock ranges found')
    return {
        name: Budget(name, frozenset(covered))
        for name, covered in sites.items()
    }


def pblock_budget(xdc_path):
    """The budget of the one pblock an XDC file defines."""
    budgets = pblock_budgets(pathlib.Path(xdc_path).read_text())
    if len(budgets) != 1:
        raise XdcError(
            '%s defines %d pblocks, expected one' % (xdc_path, len(budgets))
        )
    return next(iter(budgets.values()))


def usage_from_cells(cells):
    """Fold yosys' cell counts by type into LUTs, flip-flops, RAMB36 and DSP48.
    """
    unknown_ram = [
        cell
        for cell in cells
        if cell.startswith('RAM')
        and cell not in _LUT_CELLS
        and cell not in _RAMB36_EQUIVALENT
    ]
    if unknown_ram:
        raise SynthesisError('cannot account for cells %s' % unknown_ram)
    return Usage(
        luts=sum(n * _LUT_CELLS.get(cell, 0) for cell, n in cells.items()),
        ffs=sum(n for cell, n in cells.items() if cell in _FF_CELLS),
        ramb36=sum(n * _RAMB36_EQUIVALENT.get(cell, 0)
                   for cell, n in cells.items()),
        dsp48=sum(n for cell, n in cells.items() if cell in _DSP_CELLS),
        cells=dict(cells),
    )


def synthesize(top, sources, parameters=None, include_dirs=()):
    """yosys' 7-series estimate of a Verilog top with its parameters
    (`include files from include_dirs: a module's catalogue offsets).
    """
    yosys = shutil.which('yosys')
    if yosys is None:
        raise SynthesisError('yosys is not installed (see bindep.txt)')
    chparams = ''.join(
        ' -chparam %s %d' % item for item in sorted((parameters or {}).items())
    )
    with tempfile.TemporaryDirectory(prefix='yosys-') as work:
        stat_file = pathlib.Path(work) / 'stat.json'
        script = '; '.join([
            'read_verilog -defer %s' % ' '.join(
                ['-I%s' % directory for directory in include_dirs]
                + [str(source) for source in sources]),
            'hierarchy -check -top %s%s' % (top, chparams),
            'script %s' % SYNTH_SCRIPT,
            'tee -q -o %s stat -json' % stat_file,
        ])
        result = subprocess.run(
            [yosys, '-q', '-p', script], capture_output=True, text=True
        )
        if result.returncode != 0:
            raise SynthesisError(
                'yosys failed on %s:\n%s'
                % (top, (result.stdout + result.stderr)[-4000:])
            )
        stat = json.loads(stat_file.read_text())
    return usage_from_cells(stat['design']['num_cells_by_type'])


def overruns(usage, budget):
    """What a module needs beyond what the region has (empty when it fits)."""
    wanted = (
        ('LUTs', usage.luts, budget.luts),
        ('FFs', usage.ffs, budget.ffs),
        ('RAMB36', usage.ramb36, budget.ramb36),
        ('DSP48', usage.dsp48, budget.dsp48),
    )
    return ['%s: needs %g, %s has %g' % (name, need, budget.pblock, have)
            for name, need, have in wanted if need > have]

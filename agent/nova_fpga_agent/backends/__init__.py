"""Choosing the backend that reaches this board's programmable logic."""
import os

from nova_fpga_agent.backends import base


def probe(conf, manifest):
    """The configured backend, or for 'auto' the one sysfs shows.

    :raises BackendUnavailable: nothing usable was found.
    """
    choice = conf.agent.backend
    if choice == 'auto':
        root = conf.agent.sysfs_root
        if os.path.isdir(os.path.join(root, 'class', 'fpga_manager')):
            choice = 'fpga_manager'
        elif os.path.isdir(os.path.join(root, 'class', 'xdevcfg')):
            choice = 'xdevcfg'
        else:
            raise base.BackendUnavailable(
                'neither %s/class/fpga_manager nor %s/class/xdevcfg exists: '
                'not a Zynq board (use backend = sim for the emulator)'
                % (root, root))
    if choice == 'sim':
        from nova_fpga import catalogue
        from nova_fpga_agent.backends import sim
        from nova_fpga_agent.emulator import board
        return sim.SimBackend(board.EmulatedBoard(
            manifest, conf.emulator.part, conf.agent.state_dir,
            pcap_rate=conf.emulator.pcap_rate,
            crash_at=conf.emulator.crash_at,
            module_catalogue=catalogue.load(
                conf.agent.module_catalogue_dirs)))
    raise base.BackendUnavailable(
        'the %s backend is not part of this release yet: boards are reached '
        'through the sim backend (board emulator) only' % choice)

"""Region states, as the agent persists them and reports them to nova.

A region is FREE, being LOADED, ACTIVE (its module runs and frames flow),
STOPPED (decoupled and held in reset: a powered-off server), being
UNLOADED, or FAILED (decoupled, with the step and the cause recorded).
"""
FREE = 'FREE'
LOADING = 'LOADING'
ACTIVE = 'ACTIVE'
STOPPED = 'STOPPED'
UNLOADING = 'UNLOADING'
FAILED = 'FAILED'
STATES = (FREE, LOADING, ACTIVE, STOPPED, UNLOADING, FAILED)

#: states in which the region holds a configured module
HOLDING_MODULE = (ACTIVE, STOPPED)

#: the power argument of the agent's ``power`` call
POWER_ON = 'on'
POWER_OFF = 'off'
POWER_STATES = (POWER_ON, POWER_OFF)

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

# Run build.tcl under plain tclsh: Vivado's commands are recorded, not executed.
#
#   tclsh hdl/vivado/dry_run.tcl BUILD_DIR RECORD_FILE
#
# Without Vivado this still proves the scripts parse, their control flow runs
# to the end, every module's sources exist, and
# shows every Vivado command with its arguments as build.tcl would issue it.
# Any command plain Tcl does not know is taken as Vivado's: it is written to
# RECORD_FILE, one line per command, words separated by tabs (tabs and
# newlines inside a word become spaces), and returns "<command>" as its
# result.  tests/hdl/test_vivado_flow.py checks the record.

if {[llength $argv] != 2} {
    puts stderr "usage: tclsh dry_run.tcl BUILD_DIR RECORD_FILE"
    exit 2
}
set nova_record [open [lindex $argv 1] w]

proc unknown {args} {
    global nova_record
    set words {}
    foreach word $args {
        lappend words [string map [list "\n" " " "\t" " "] $word]
    }
    puts $nova_record [join $words "\t"]
    return "<[lindex $args 0]>"
}

set argv [list [lindex $argv 0]]
set argc 1
source [file join [file dirname [file normalize [info script]]] build.tcl]
close $nova_record

// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

#define _GNU_SOURCE
#include "ctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct outbuf {
	char *p;
	size_t len, used;
};

static void put(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct outbuf *o, const char *fmt, ...)
{
	if (o->used >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

static int parse_vlan(const char *s, unsigned *v)
{
	char *end;
	if (!s)
		return -1;
	if (!strcmp(s, "-")) {
		*v = DM_NO_VLAN;
		return 0;
	}
	unsigned long x = strtoul(s, &end, 10);
	if (*end || x < 1 || x > 4094)
		return -1;
	*v = (unsigned)x;
	return 0;
}

int dm_control(struct dm_mover *m, const char *line, char *out, size_t outlen)
{
	struct outbuf o = { out, outlen, 0 };
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", line);
	char *argv[8] = { 0 };
	int argc = 0;
	for (char *t = strtok_r(buf, " \t\r\n", &save); t && argc < 8;
	     t = strtok_r(NULL, " \t\r\n", &save))
		argv[argc++] = t;
	out[0] = 0;
	if (!argc) {
		put(&o, "error empty command\n");
		return 0;
	}
	const char *cmd = argv[0];
	if (!strcmp(cmd, "ping")) {
		put(&o, "ok\n");
	} else if (!strcmp(cmd, "stop")) {
		put(&o, "ok\n");
		return 1;
	} else if (!strcmp(cmd, "route") && argc == 5 && !strcmp(argv[1], "add")) {
		unsigned vlan, egress;
		int r = dm_find_region(m, argv[3]);
		if (parse_vlan(argv[2], &vlan) || vlan == DM_NO_VLAN || parse_vlan(argv[4], &egress))
			put(&o, "error bad VLAN\n");
		else if (r < 0)
			put(&o, "error no region %s\n", argv[3]);
		else if (dm_route_add(m, vlan, r, egress))
			put(&o, "error route refused\n");
		else
			put(&o, "ok\n");
	} else if (!strcmp(cmd, "route") && argc == 3 && !strcmp(argv[1], "del")) {
		unsigned vlan;
		if (parse_vlan(argv[2], &vlan) || dm_route_del(m, vlan))
			put(&o, "error no route for %s\n", argv[2]);
		else
			put(&o, "ok\n");
	} else if (!strcmp(cmd, "routes") && argc == 1) {
		for (unsigned v = 1; v < 4095; v++) {
			if (m->route_region[v] < 0)
				continue;
			if (m->route_egress[v] == DM_NO_VLAN)
				put(&o, "route %u %s -\n", v, m->region[m->route_region[v]].name);
			else
				put(&o, "route %u %s %u\n", v, m->region[m->route_region[v]].name,
				    m->route_egress[v]);
		}
		put(&o, "ok\n");
	} else if (!strcmp(cmd, "regions") && argc == 1) {
		for (int r = 0; r < m->nregions; r++)
			put(&o, "region %s %d healthy %d decoupled %d ring %u slot %u\n",
			    m->region[r].name, r, m->region[r].healthy, m->region[r].decoupled,
			    m->region[r].dma.tx.n, m->region[r].dma.slot);
		put(&o, "ok\n");
	} else if ((!strcmp(cmd, "decouple") || !strcmp(cmd, "couple") ||
		    !strcmp(cmd, "reset-counters")) && argc == 2) {
		int r = dm_find_region(m, argv[1]);
		if (r < 0) {
			put(&o, "error no region %s\n", argv[1]);
		} else if (!strcmp(cmd, "decouple")) {
			dm_decouple(m, r);
			put(&o, "ok\n");
		} else if (!strcmp(cmd, "couple")) {
			if (dm_couple(m, r))
				put(&o, "error region %s: %s\n", argv[1], m->region[r].dma.err);
			else
				put(&o, "ok\n");
		} else {
			dm_reset_counters(m, r);
			put(&o, "ok\n");
		}
	} else {
		put(&o, "error unknown command\n");
	}
	return 0;
}

void dm_control_dump_state(const struct dm_mover *m, char *out, size_t outlen)
{
	struct outbuf o = { out, outlen, 0 };
	out[0] = 0;
	for (unsigned v = 1; v < 4095; v++) {
		if (m->route_region[v] < 0)
			continue;
		if (m->route_egress[v] == DM_NO_VLAN)
			put(&o, "route add %u %s -\n", v, m->region[m->route_region[v]].name);
		else
			put(&o, "route add %u %s %u\n", v, m->region[m->route_region[v]].name,
			    m->route_egress[v]);
	}
	for (int r = 0; r < m->nregions; r++)
		if (m->region[r].decoupled)
			put(&o, "decouple %s\n", m->region[r].name);
}

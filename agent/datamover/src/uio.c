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
#include "uio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void *dm_map(const char *path, size_t size, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return NULL;
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "mmap %s (%zu bytes): %s", path, size, strerror(e));
		return NULL;
	}
	return p;
}

int dm_irq_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st)) {
		snprintf(err, errlen, "stat %s: %s", path, strerror(errno));
		return -1;
	}
	int fd;
	if (S_ISCHR(st.st_mode)) {
		fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return fd;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s is neither a UIO device nor its emulated stand-in", path);
		return -1;
	}
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "%s: path too long for a Unix socket", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		snprintf(err, errlen, "connect %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

uint32_t dm_irq_drain(int fd)
{
	uint32_t count = 0, v;
	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		count = v;
	return count;
}

int dm_irq_rearm(int fd)
{
	uint32_t one = 1;
	return write(fd, &one, sizeof(one)) == (ssize_t)sizeof(one) ? 0 : -1;
}

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

/*
 * The 7-series / UltraScale configuration CRC, over big-endian bitstream words.
 *
 * The configuration logic folds every register write into a CRC-32C
 * (Castagnoli, reflected polynomial 0x82F63B78) as one 37-bit value: the 32
 * data bits, least significant first, then the 5-bit register address.  A
 * pure-Python loop over a 4 MB bitstream runs at a few MB/s; this runs at
 * GB/s, which is what lets Glance check an upload while it streams.
 *
 * update(crc, data, addr) -> crc
 *     data: a bytes-like object holding whole big-endian words.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#define POLY 0x82F63B78u

static uint32_t table[4][256];   /* slicing-by-4 for the data bits */
static uint32_t addr_table[32];  /* the 5 address bits in one step */

static void build_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t c = i;
        for (int k = 0; k < 5; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        addr_table[i] = c;
    }
}

static inline uint32_t load_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint32_t update_table(uint32_t crc, const unsigned char *p,
                             Py_ssize_t n, uint32_t a)
{
    for (Py_ssize_t i = 0; i < n; i++, p += 4) {
        uint32_t c = crc ^ load_be32(p);
        c = table[3][c & 0xff] ^ table[2][(c >> 8) & 0xff] ^
            table[1][(c >> 16) & 0xff] ^ table[0][c >> 24];
        crc = (c >> 5) ^ addr_table[(c ^ a) & 0x1f];
    }
    return crc;
}

/* shift_ops[j] is the GF(2) operator "fold 2^j words of zeros" (37 zero
 * bits each) as 32 columns: it lets independently computed CRCs of
 * consecutive spans be combined, crc(A+B) = shift(crc(A), |B|) ^ crc0(B). */
static uint32_t shift_ops[40][32];

static uint32_t apply_op(const uint32_t *op, uint32_t v)
{
    uint32_t r = 0;
    for (int i = 0; v; i++, v >>= 1)
        if (v & 1)
            r ^= op[i];
    return r;
}

static void build_shift_ops(void)
{
    for (int i = 0; i < 32; i++) {
        uint32_t c = 1u << i;
        for (int k = 0; k < 37; k++)
            c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        shift_ops[0][i] = c;
    }
    for (int j = 1; j < 40; j++)
        for (int i = 0; i < 32; i++)
            shift_ops[j][i] = apply_op(shift_ops[j - 1],
                                       shift_ops[j - 1][i]);
}

static uint32_t shift_words(uint32_t crc, Py_ssize_t n)
{
    for (int j = 0; n; j++, n >>= 1)
        if (n & 1)
            crc = apply_op(shift_ops[j], crc);
    return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#define HAVE_HW_CRC 1
/* SSE4.2's crc32 instruction is the same reflected CRC-32C step over the
 * 32 data bits (no inversions).  Four spans are folded at once, so the
 * four dependency chains overlap in the pipeline, then combined. */
__attribute__((target("sse4.2")))
static uint32_t update_sse42(uint32_t crc, const unsigned char *p,
                             Py_ssize_t n, uint32_t a)
{
    Py_ssize_t m = n / 4;
    uint32_t c0 = crc, c1 = 0, c2 = 0, c3 = 0;
    const unsigned char *p1 = p + 4 * m, *p2 = p1 + 4 * m, *p3 = p2 + 4 * m;
    for (Py_ssize_t i = 0; i < m; i++) {
        uint32_t d0 = _mm_crc32_u32(c0, load_be32(p + 4 * i));
        uint32_t d1 = _mm_crc32_u32(c1, load_be32(p1 + 4 * i));
        uint32_t d2 = _mm_crc32_u32(c2, load_be32(p2 + 4 * i));
        uint32_t d3 = _mm_crc32_u32(c3, load_be32(p3 + 4 * i));
        c0 = (d0 >> 5) ^ addr_table[(d0 ^ a) & 0x1f];
        c1 = (d1 >> 5) ^ addr_table[(d1 ^ a) & 0x1f];
        c2 = (d2 >> 5) ^ addr_table[(d2 ^ a) & 0x1f];
        c3 = (d3 >> 5) ^ addr_table[(d3 ^ a) & 0x1f];
    }
    for (Py_ssize_t i = 4 * m; i < n; i++) {  /* the rest joins span 3 */
        uint32_t d3 = _mm_crc32_u32(c3, load_be32(p + 4 * i));
        c3 = (d3 >> 5) ^ addr_table[(d3 ^ a) & 0x1f];
    }
    Py_ssize_t last = n - 3 * m;
    crc = shift_words(c0, m) ^ c1;
    crc = shift_words(crc, m) ^ c2;
    return shift_words(crc, last) ^ c3;
}
#endif

static uint32_t (*update_words)(uint32_t, const unsigned char *, Py_ssize_t,
                                uint32_t) = update_table;

static PyObject *crc_update(PyObject *self, PyObject *args)
{
    unsigned long crc_in;
    unsigned int addr;
    Py_buffer view;

    if (!PyArg_ParseTuple(args, "ky*I", &crc_in, &view, &addr))
        return NULL;
    if (view.len % 4) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "data must hold whole 32-bit words");
        return NULL;
    }
    const unsigned char *p = view.buf;
    Py_ssize_t n = view.len / 4;
    uint32_t crc = (uint32_t)crc_in;
    uint32_t a = addr & 0x1f;

    if (n > 64) {
        Py_BEGIN_ALLOW_THREADS
        crc = update_words(crc, p, n, a);
        Py_END_ALLOW_THREADS
    } else {
        crc = update_words(crc, p, n, a);
    }

    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyObject *crc_implementation(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(update_words == update_table ? "table"
                                                              : "sse4.2");
}

static PyMethodDef methods[] = {
    {"update", crc_update, METH_VARARGS,
     "update(crc, data, addr) -> crc: fold the big-endian words of data, "
     "each written to register addr, into the configuration CRC."},
    {"implementation", crc_implementation, METH_NOARGS,
     "Which implementation runs: 'sse4.2' or 'table'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crc",
    "7-series configuration CRC (CRC-32C over address and data).", -1, methods,
};

PyMODINIT_FUNC PyInit__crc(void)
{
    build_tables();
    build_shift_ops();
#ifdef HAVE_HW_CRC
    if (getenv("NOVA_FPGA_CRC_TABLE") == NULL && __builtin_cpu_supports("sse4.2"))
        update_words = update_sse42;
#endif
    return PyModule_Create(&module);
}

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

    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++, p += 4) {
        uint32_t w = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
                     ((uint32_t)p[2] << 8) | (uint32_t)p[3];
        uint32_t c = crc ^ w;
        c = table[3][c & 0xff] ^ table[2][(c >> 8) & 0xff] ^
            table[1][(c >> 16) & 0xff] ^ table[0][c >> 24];
        crc = (c >> 5) ^ addr_table[(c ^ a) & 0x1f];
    }
    Py_END_ALLOW_THREADS

    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyMethodDef methods[] = {
    {"update", crc_update, METH_VARARGS,
     "update(crc, data, addr) -> crc: fold the big-endian words of data, "
     "each written to register addr, into the configuration CRC."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_crc",
    "7-series configuration CRC (CRC-32C over address and data).", -1, methods,
};

PyMODINIT_FUNC PyInit__crc(void)
{
    build_tables();
    return PyModule_Create(&module);
}

/* The hot loops of the log, JSON and diff reducers, in C: one pass over the bytes instead of several Python passes.
 *
 * scan(buf, mask) -> (starts, ids, shape_data, shape_ends, counts)
 *     Splits buf on '\n'. starts: bytes holding n+1 native int64 line start offsets (the last one is
 *     len(buf)). ids: bytes holding n native int32, each line's shape id. shape_data: the distinct
 *     shapes, in order of first appearance, each followed by '\n' (a shape is a line without its '\n';
 *     with mask, every run of ASCII digits is one '0'); shape_ends: native int64, where each shape's
 *     '\n' ends in shape_data. counts: a bytearray of native int64, how many lines have each shape.
 *
 * group_shapes(shape_data, shape_ends, modes, counts) -> (ids, names, totals)
 *     Groups the shapes by a key made for each (modes: a byte per shape; 0: the shape, 1: b"\x00" +
 *     mask(shape), 2: b"\x01" + words(shape)) in a scratch buffer, so only distinct keys become objects:
 *     ids holds native int32, each shape's group number, groups numbered in order of first appearance;
 *     names: each group's key; totals: native int64, the sum of counts (native int64, one per shape).
 *     With prev_ids/prev_names (an earlier grouping), a shape of mode 0 or 1 keeps its earlier key.
 *
 * mark_rare(counts, template_of, totals, fold_min, modes, mode) -> int
 *     Sets modes[s] = mode for every shape with lines whose template (template_of: int32 per shape, or
 *     None: the shape itself) has fewer than fold_min lines (totals); returns how many.
 *
 * select(ids, template_of, frequent, verbatim) -> bytes of native int64 line indexes
 *     The lines that stay visible, in order: every line listed in verbatim (sorted int64 indexes), every
 *     line whose template (template_of[ids[i]], int32) is not frequent (frequent: one byte per template),
 *     and the first non-verbatim line of each frequent template.
 *
 * lines_with(ids, flags) -> bytes of native int64 line indexes
 *     The lines whose shape is flagged (flags: one byte per shape id), in order.
 *
 * status_lines(buf, starts, lines) -> bytes of native int64 line indexes
 *     Those of the given lines that hold '" ' followed by 4 or 5, two digits and a space (an HTTP
 *     4xx/5xx status in an access log line: the part of the signal pattern a shape cannot tell).
 *
 * mask(shape) -> bytes
 *     The shape with every id-like token replaced by '#': the same result as
 *     MASK_RE.sub(b"#", shape) of log.py: a 0x hex number, a uuid-like run of 4+ hex groups joined by
 *     '-' holding a digit, a hex word holding a digit (also right after '_'), a run of digits.
 *
 * mask_numbers(buf) -> bytes
 *     NUMBERS_RE.sub(b"#", buf) of operators/signals.py: a uuid, a hex id of 8 to 64 digits holding a
 *     decimal digit (neither next to a letter or digit), a run of digits.
 *
 * first_equal(buf, starts, ends, digits_alike, body, rstrip) -> bytes of native int64
 *     For each span buf[starts[k]:ends[k]] (native int64 arrays), the index of the first span of equal
 *     bytes; digits_alike: any ASCII digit equals any other; body: a span's end pulled back over one
 *     '\n' then one '\r'; rstrip: over trailing ASCII whitespace (as bytes.rstrip()).
 *
 * first_template(buf, starts, ends) -> bytes of native int64
 *     For each span (a line without its newline), the index of the first span of the same signal
 *     template: signals.templates' key (a " \xc3\x97N" count at its end left out, mask_numbers, trailing
 *     whitespace left out), compared by the kernel: no bytes object a line.
 *
 * words(shape) -> bytes
 *     The shape's whitespace-separated tokens joined by one space, each token holding a '0' or one of
 *     ': / = @' before its last byte replaced by '#' (the word-level template key).
 *
 * pair_brackets(buf, start, stop, wide=True) -> (opens, closes, end)
 *     JSON bracket pairing for the container opening at buf[start], searching before stop, strings
 *     skipped ('"', then any bytes with '\\' escaping the next one, then '"'). opens and closes hold
 *     native int64 (int32 when not wide): every container met, in order of its opening bracket, and its end (exclusive, -1
 *     when it did not close). end: the end of the container at start, or -1 (truncated, mismatched
 *     bracket, unterminated string). The twin is jsonscan.container_ends_py.
 *
 * diff_lines(buf) -> (starts, kinds)
 *     A diff's lines and the role of each: starts holds n+1 native int64 line start offsets (the last
 *     one is len(buf); a last line without '\n' counts), kinds a bytearray of n roles (OTHER, META, CTX,
 *     CHG, NONL, BIN as numbered in diff.py). The twin is diff.classify_lines_py over diff.line_starts.
 *
 * search_lines(buf, numbered, good) -> (starts, tails, kinds, pids, paths, (plain_todo, context_todo))
 *     The lines of search output (``path:12:text``, ``path-12-text``; ``path:text`` when not numbered)
 *     and what each is, as search.py's _parse_flat finds them: starts holds n+1 native int64 line
 *     starts, tails n bytes (the line ending's length: 0, 1 or 2), kinds a bytearray of n kinds
 *     (MATCH, CONTEXT, SEP, BLANK, OTHER as numbered in search.py), pids a bytearray of native int32, each line's
 *     path id (-1: none) into paths (the distinct paths of matching lines, in order of first
 *     appearance; good(path), called once for each, says whether it can be a path). Left OTHER for the
 *     caller (native int64 line indexes): plain_todo, the lines holding "inary file " (perhaps a binary
 *     notice), and context_todo, those whose first "-12-" does not end a known path. The twin is
 *     search_twins.search_lines_py.
 *
 * diff_ranks(text, starts, last_nl) -> (codes, stat_lines)
 *     The diff type's budget ranks of a reduced diff's lines (rank_lines of diff.py): text's lines start at
 *     starts (native int64, n + 1; each but the last, or every one with last_nl, ends in a newline);
 *     codes, a bytearray, holds tier * 16 + rank per line, 255 for a line left unranked; stat_lines (native
 *     int64) the unranked lines that may be --stat lines (a space, then a '|'), for the caller's pattern.
 *     The twin is diff_twins.diff_ranks_py.
 *
 * text_runs(buf, repeat_min, block_max, block_work) -> (starts, first_ends, ends, copies, periods)
 *     The text type's folded runs, each column native int64: a line (period 1) or a block of up to
 *     block_max lines repeated repeat_min times or more in a row, over the whole lines (ending in '\n');
 *     taken from the start, the shortest period first where two start together; blocks looked for
 *     while lines * period <= block_work (block_max <= 14); blank blocks left out. One pass over the lines
 *     keeps only the last block_max + 2 line starts. The twin is text_twins.text_runs_py.
 *
 * source_lines(buf, max_len, numbered, tests, clauses) -> (lines, (records, ...))
 *     The lines of a source file each group of clauses takes (the lines an alternative of a signature
 *     pattern may match), by byte tests: a word held, a word first after the indent, first in the line,
 *     last before trailing blanks, a first byte of a set, or not so. records: native int64, six a line
 *     (number, start, end, end less trailing blanks, indent, test bits). The twin is
 *     source_twins.source_lines_py.
 *
 * Each has a pure-Python twin (log.py, jsonscan.py, diff.py); tests/test_kernel.py checks that they agree.
 * scan and diff_lines run their per-line loop without the GIL (their memory is PyMem_Raw*), so the other
 * workers of a process (bytewax -w N) run Python meanwhile.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>  /* malloc_trim (release_memory) */
#endif

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_DIGITS 1  /* the first byte in memory is the lowest byte of a loaded word */
#else
#define SWAR_DIGITS 0
#endif

/* 0x80 in each byte of w that is an ASCII digit, 0 elsewhere (bytes 0x30-0x39; exact per byte). */
static inline uint64_t digit_bytes(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ULL, low7 = ones * 127, high = ones * 128;
    uint64_t x = w & low7;
    return ((ones * (127 + 0x3A) - x) & ~w & (x + ones * (127 - 0x2F))) & high;
}

/* The last n bytes (1 to 7) before end as the low bytes of a word, the rest 0: what memcpy(&w, end - n, n)
 * into a zeroed w gives on a little-endian machine; where the key holds 8 bytes or more (long), by one
 * load of the 8 bytes that end there (a load that follows a short copy waits for it). */
static inline uint64_t tail_word(const char *end, Py_ssize_t n, int long_key) {
    uint64_t w = 0;
#if SWAR_DIGITS
    if (long_key) {
        memcpy(&w, end - 8, 8);
        return w >> (8 * (8 - n));
    }
#else
    (void)long_key;
#endif
    memcpy(&w, end - n, (size_t)n);
    return w;
}

/* A fast non-cryptographic hash, 8 bytes a step; equal keys are confirmed with memcmp. */
static uint64_t hash_bytes(const char *p, Py_ssize_t n) {
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    const int long_key = n >= 8;
    uint64_t h = (uint64_t)n * k;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = n ? tail_word(p + n, n, long_key) : 0;
    h = (h ^ w) * k;
    h ^= h >> 32;
    return h;
}

/* hash_bytes' use in scan, 16 bytes a step in two independent lanes (half the chain of multiplies a
 * line); only where a shape goes in scan's own table depends on it. */
static inline uint64_t hash_shape(const char *p, Py_ssize_t n) {
    const uint64_t k = 0x9E3779B97F4A7C15ULL, k2 = 0xC2B2AE3D27D4EB4FULL;
    const int long_key = n >= 8;
    uint64_t h = (uint64_t)n * k, g = (uint64_t)n * k2;
    while (n >= 16) {
        uint64_t w, v;
        memcpy(&w, p, 8);
        memcpy(&v, p + 8, 8);
        h = (h ^ w) * k;
        g = (g ^ v) * k2;
        h ^= h >> 29;
        g ^= g >> 31;
        p += 16;
        n -= 16;
    }
    if (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = n ? tail_word(p + n, n, long_key) : 0;
    h = (h ^ w ^ (g << 17 | g >> 47)) * k;
    h ^= h >> 32;
    return h;
}

typedef struct {
    Py_ssize_t *slots;   /* index into the entry arrays + 1; 0 = empty */
    Py_ssize_t nslots;   /* power of two */
    uint64_t *hashes;
    PyObject **keys;     /* owned bytes objects */
    Py_ssize_t *counts;
    Py_ssize_t n, cap;
} Table;

static void table_free(Table *t) {
    for (Py_ssize_t i = 0; i < t->n; i++) Py_XDECREF(t->keys[i]);
    PyMem_RawFree(t->slots);
    PyMem_Free(t->hashes);
    PyMem_Free(t->keys);
    PyMem_Free(t->counts);
}

/* Double an open-addressing slot array (1024 at first) and place the n entries again by their hashes. */
static int grow_slots(Py_ssize_t **slots_p, Py_ssize_t *nslots_p, const uint64_t *hashes, Py_ssize_t n) {
    Py_ssize_t nslots = *nslots_p ? *nslots_p * 2 : 1024;
    Py_ssize_t *slots = PyMem_RawCalloc((size_t)nslots, sizeof(Py_ssize_t));  /* no GIL needed (scan) */
    if (!slots) return -1;
    for (Py_ssize_t e = 0; e < n; e++) {
        Py_ssize_t s = (Py_ssize_t)(hashes[e] & (uint64_t)(nslots - 1));
        while (slots[s]) s = (s + 1) & (nslots - 1);
        slots[s] = e + 1;
    }
    PyMem_RawFree(*slots_p);
    *slots_p = slots;
    *nslots_p = nslots;
    return 0;
}

static int table_grow_slots(Table *t) { return grow_slots(&t->slots, &t->nslots, t->hashes, t->n); }

static int table_grow_entries(Table *t) {
    Py_ssize_t cap = t->cap ? t->cap * 2 : 256;
    uint64_t *h = PyMem_Realloc(t->hashes, (size_t)cap * sizeof(uint64_t));
    if (!h) return -1;
    t->hashes = h;
    PyObject **k = PyMem_Realloc(t->keys, (size_t)cap * sizeof(PyObject *));
    if (!k) return -1;
    t->keys = k;
    Py_ssize_t *c = PyMem_Realloc(t->counts, (size_t)cap * sizeof(Py_ssize_t));
    if (!c) return -1;
    t->counts = c;
    t->cap = cap;
    return 0;
}

/* The id of the key (data, len), added with count 0 when new; -1 on memory error. */
/* The id of the key (data, len), added with count 0 when new (holding `object` when given, else a new
 * bytes object); -1 on memory error. */
static Py_ssize_t table_intern(Table *t, const char *data, Py_ssize_t len, uint64_t hash, PyObject *object) {
    if ((t->n + 1) * 2 > t->nslots && table_grow_slots(t) < 0) return -1;
    Py_ssize_t s = (Py_ssize_t)(hash & (uint64_t)(t->nslots - 1));
    for (;;) {
        Py_ssize_t e = t->slots[s];
        if (!e) break;
        e -= 1;
        if (t->hashes[e] == hash && PyBytes_GET_SIZE(t->keys[e]) == len
            && memcmp(PyBytes_AS_STRING(t->keys[e]), data, (size_t)len) == 0)
            return e;
        s = (s + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap && table_grow_entries(t) < 0) return -1;
    PyObject *key = object;
    if (key) Py_INCREF(key);
    else if (!(key = PyBytes_FromStringAndSize(data, len))) return -1;
    Py_ssize_t e = t->n++;
    t->hashes[e] = hash;
    t->keys[e] = key;
    t->counts[e] = 0;
    t->slots[s] = e + 1;
    return e;
}

/* The distinct shapes of scan(), in one bytes object ("arena"): each shape followed by '\n', in order of
 * first appearance. The arena is made as big as the input plus one (the most the shapes can take:
 * pages never written are never resident) and cut to size at the end. The hash table holds, per shape,
 * a slot (the high half of its hash, which also places it, and its index), where it ends in the arena
 * and its count: no Python object per shape (a log whose lines all differ has as many shapes as lines),
 * and no hash kept beside the slot (a slot is placed again from its own high half when the slots
 * double: the peak of a log of distinct lines is 8 bytes a line less). The ends and the counts are written in place
 * in the objects scan returns (room for a shape a line, cut to size at the end: no copy); the rest
 * of its memory is PyMem_Raw*: the scan runs without the GIL, so other workers' Python code runs
 * meanwhile. */
typedef struct {
    uint64_t *slots;     /* the hash's high 32 bits, then the index into the entry arrays + 1; 0 = empty */
    Py_ssize_t nslots;   /* power of two, at most 2^32 (a shape a line, fewer than 2^31 lines) */
    int64_t *ends;       /* after the shape's '\n' in the arena; the shape starts where the one before ends (borrowed) */
    int64_t *counts;     /* (borrowed) */
    Py_ssize_t n, cap;   /* cap: the room of the two entry arrays, fixed */
    char *arena;         /* PyBytes_AS_STRING of the arena object, room for capacity bytes */
    Py_ssize_t capacity;
    Py_ssize_t seen;     /* lines looked up so far (of cap - 1): how fast new shapes come */
} Shapes;

static void shapes_free(Shapes *t) {  /* (ends and counts belong to their objects) */
    PyMem_RawFree(t->slots);
}

#define SLOT_TAG(hash) ((hash) & 0xFFFFFFFF00000000ULL)  /* a slot's high half: most other shapes are told apart there */
#define SLOT_ENTRY(slot) ((Py_ssize_t)((slot) & 0xFFFFFFFFULL))  /* its low half: the entry + 1 (ids fit 31 bits) */
#define SLOT_HOME(hash, nslots) ((Py_ssize_t)(((hash) >> 32) & (uint64_t)((nslots) - 1)))  /* where a probe starts: from the tag */

/* Double the slot array (1024 at first) and place the shapes again, each slot by its own tag. Where
 * new shapes have come at least every other line over 16,384 slots' worth (a log whose lines all
 * differ), straight to the room the same rate needs to the last line: each doubling on the way would
 * be a fresh array written whole (its pages faulted in, its slots placed again). Where the slots are
 * does not change a shape's id (ids go by first appearance). */
static int shapes_grow_slots(Shapes *t) {
    Py_ssize_t nslots = t->nslots ? t->nslots * 2 : 1024;
    if (t->nslots >= 16384 && t->n * 2 >= t->seen && t->seen > 0) {
        double rate = (double)t->n / (double)t->seen;  /* shapes a line so far */
        double need = 2.0 * (rate * (double)(t->cap - 1) + 1.0);
        while ((double)nslots < need && nslots < ((Py_ssize_t)1 << 32)) nslots *= 2;
    }
    uint64_t *slots = PyMem_RawCalloc((size_t)nslots, sizeof(uint64_t));  /* no GIL needed (scan) */
    if (!slots) return -1;
    for (Py_ssize_t old = 0; old < t->nslots; old++) {
        uint64_t slot = t->slots[old];
        if (!slot) continue;
        Py_ssize_t s = SLOT_HOME(slot, nslots);
        while (slots[s]) s = (s + 1) & (nslots - 1);
        slots[s] = slot;
    }
    PyMem_RawFree(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

/* The id of the shape (data, len), appended to the arena with count 0 when new; -1 when out of memory
 * (or, which cannot happen, out of entries or arena: there is room for a shape a line). Needs no GIL. */
static Py_ssize_t shapes_intern(Shapes *t, const char *data, Py_ssize_t len, uint64_t hash) {
    if ((t->n + 1) * 2 > t->nslots && shapes_grow_slots(t) < 0) return -1;
    Py_ssize_t s = SLOT_HOME(hash, t->nslots);
    for (;;) {
        uint64_t slot = t->slots[s];
        if (!slot) break;
        if (SLOT_TAG(slot) == SLOT_TAG(hash)) {  /* the entry's arrays are read only for a likely match */
            Py_ssize_t e = SLOT_ENTRY(slot) - 1;
            Py_ssize_t start = e ? (Py_ssize_t)t->ends[e - 1] : 0;
            if ((Py_ssize_t)t->ends[e] - 1 - start == len && memcmp(t->arena + start, data, (size_t)len) == 0)
                return e;
        }
        s = (s + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) return -1;
    Py_ssize_t used = t->n ? (Py_ssize_t)t->ends[t->n - 1] : 0;
    if (used + len + 1 > t->capacity) return -1;
    memcpy(t->arena + used, data, (size_t)len);
    t->arena[used + len] = '\n';
    Py_ssize_t e = t->n++;
    t->ends[e] = used + len + 1;
    t->counts[e] = 0;
    t->slots[s] = SLOT_TAG(hash) | (uint64_t)(e + 1);
    return e;
}

/* A line's shape into o (room for n bytes): every run of ASCII digits one '0'; returns its length.
 * Eight bytes at a time: copied whole when none is a digit, else each byte placed without a branch
 * (a digit that follows a digit is written over by the next byte). */
static inline Py_ssize_t shape_into_plain(const unsigned char *s, Py_ssize_t n, char *o) {
    Py_ssize_t k = 0, j = 0;
    unsigned prev = 0;  /* the byte before j is a digit */
#if SWAR_DIGITS
    for (; j + 8 <= n; j += 8) {
        uint64_t w;
        memcpy(&w, s + j, 8);
        if (!digit_bytes(w)) {
            memcpy(o + k, &w, 8);
            k += 8;
            prev = 0;
            continue;
        }
        for (int b = 0; b < 64; b += 8) {
            unsigned char c = (unsigned char)(w >> b);
            unsigned d = (unsigned)(c - '0') < 10u;
            o[k] = d ? '0' : (char)c;
            k += !(d & prev);
            prev = d;
        }
    }
#endif
    for (; j < n; j++) {
        unsigned char c = s[j];
        unsigned d = (unsigned)(c - '0') < 10u;
        o[k] = d ? '0' : (char)c;
        k += !(d & prev);
        prev = d;
    }
    return k;
}

#if SWAR_DIGITS && defined(__x86_64__) && defined(__GNUC__)
#define SHAPE_PEXT 1
#include <immintrin.h>
/* shape_into_plain with BMI2 (chosen at import where the CPU has it): the eight bytes of a word that
 * holds a digit gathered by one pext, every digit '0' and every digit after a digit left out. */
__attribute__((target("bmi2,popcnt")))
static Py_ssize_t shape_into_pext(const unsigned char *s, Py_ssize_t n, char *o) {
    const uint64_t ones = 0x0101010101010101ULL;
    Py_ssize_t k = 0, j = 0;
    uint64_t prev = 0;  /* 0x80 when the byte before j is a digit */
    for (; j + 8 <= n; j += 8) {
        uint64_t w;
        memcpy(&w, s + j, 8);
        uint64_t d = digit_bytes(w);  /* 0x80 in each digit byte */
        if (!d) {
            memcpy(o + k, &w, 8);
            k += 8;
            prev = 0;
            continue;
        }
        uint64_t dm = (d >> 7) * 0xFF;  /* 0xFF in each digit byte */
        uint64_t drop = ((d & ((d << 8) | prev)) >> 7) * 0xFF;  /* digits after a digit */
        uint64_t keep = ~drop;
        w = (w & ~dm) | ((ones * '0') & dm);
        uint64_t out = _pext_u64(w, keep);
        memcpy(o + k, &out, 8);
        k += (Py_ssize_t)(__builtin_popcountll(keep) >> 3);
        prev = d >> 56;
    }
    unsigned p = prev != 0;
    for (; j < n; j++) {
        unsigned char c = s[j];
        unsigned dd = (unsigned)(c - '0') < 10u;
        o[k] = dd ? '0' : (char)c;
        k += !(dd & p);
        p = dd;
    }
    return k;
}
#endif

static Py_ssize_t (*shape_into)(const unsigned char *, Py_ssize_t, char *) = shape_into_plain;

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    int mask;
    if (!PyArg_ParseTuple(args, "y*p", &view, &mask)) return NULL;
    const char *data = view.buf;
    Py_ssize_t size = view.len;
    PyObject *starts_obj = NULL, *ids_obj = NULL, *ends_obj = NULL, *counts = NULL, *arena = NULL, *result = NULL;
    char *shape = NULL;
    Shapes table = {0};
    int failed = 0;  /* set without the GIL: 1 out of memory, 2 too many distinct lines */

    Py_ssize_t n = 0;
    for (const char *p = data, *end = data + size; p < end; n++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    starts_obj = PyBytes_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(int64_t));
    ids_obj = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    arena = PyBytes_FromStringAndSize(NULL, size + 1);  /* the shapes never take more */
    /* room for a shape a line from the start: no array moved as the shapes come (pages never written
     * are never resident: a log of few shapes touches few) */
    ends_obj = PyBytes_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(int64_t));
    counts = PyByteArray_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(int64_t));  /* mutable */
    if (!starts_obj || !ids_obj || !arena || !ends_obj || !counts) goto done;
    table.arena = PyBytes_AS_STRING(arena);
    table.capacity = size + 1;
    table.ends = (int64_t *)PyBytes_AS_STRING(ends_obj);
    table.counts = (int64_t *)PyByteArray_AS_STRING(counts);
    table.cap = n + 1;
    int64_t *starts = (int64_t *)PyBytes_AS_STRING(starts_obj);
    int32_t *ids = (int32_t *)PyBytes_AS_STRING(ids_obj);
    Py_ssize_t shape_cap = 0;

    starts[0] = 0;
    Py_BEGIN_ALLOW_THREADS  /* from here to the end of the loop: no Python object is touched */
    /* Two lines in flight: the key and hash of line i + 1 are made, and its slot fetched into the cache,
     * before line i is looked up in the table (a log of distinct lines: the slots do not fit the cache,
     * and the lookup would wait for memory every line). The same lookups in the same order. */
    char *shape_next = NULL;  /* the key of line i + 1 when masked (shape: line i's) */
    Py_ssize_t pos = 0, key_len = 0, next_pos = 0;
    const char *key = NULL;
    uint64_t hash = 0;
    for (Py_ssize_t i = 0; i <= n && !failed; i++) {
        /* line i's key, hash and end are (key, key_len, hash, pos); make line i + 1's */
        const char *next_key = NULL;
        Py_ssize_t next_len = 0, after = next_pos;
        uint64_t next_hash = 0;
        if (i < n) {
            const char *line = data + next_pos;
            const char *nl = memchr(line, '\n', (size_t)(size - next_pos));
            Py_ssize_t len = nl ? nl - line : size - next_pos;
            after = nl ? (nl - data) + 1 : size;
            next_key = line;
            next_len = len;
            if (mask) {
                if (len > shape_cap) {
                    shape_cap = len > 256 ? len : 256;
                    char *grown = PyMem_RawRealloc(shape, (size_t)shape_cap);
                    char *grown_next = grown ? PyMem_RawRealloc(shape_next, (size_t)shape_cap) : NULL;
                    if (grown) shape = grown;
                    if (grown_next) shape_next = grown_next;
                    if (!grown || !grown_next) {
                        failed = 1;
                        break;
                    }
                }
                next_len = shape_into((const unsigned char *)line, len, shape_next);
                next_key = shape_next;
            }
            next_hash = hash_shape(next_key, next_len);
            if (table.nslots)
                __builtin_prefetch(table.slots + SLOT_HOME(next_hash, table.nslots));
        }
        if (i > 0) {  /* line i - 1 */
            table.seen = i;
            Py_ssize_t id = shapes_intern(&table, mask ? shape : key, key_len, hash);  /* (shape: maybe moved) */
            if (id < 0 || id > INT32_MAX) {
                failed = id < 0 ? 1 : 2;
                break;
            }
            table.counts[id] += 1;
            ids[i - 1] = (int32_t)id;
            starts[i] = pos;
        }
        if (mask) {  /* the buffer of line i + 1 becomes the current one */
            char *t = shape;
            shape = shape_next;
            shape_next = t;
        }
        key = next_key;
        key_len = next_len;
        hash = next_hash;
        pos = after;
        next_pos = after;
    }
    PyMem_RawFree(shape_next);
    Py_END_ALLOW_THREADS
    if (failed) {
        if (failed == 1) PyErr_NoMemory();
        else PyErr_SetString(PyExc_OverflowError, "too many distinct lines");
        goto done;
    }

    PyMem_RawFree(table.slots);  /* not needed any more: room for what is made below */
    table.slots = NULL;
    if (_PyBytes_Resize(&arena, table.n ? (Py_ssize_t)table.ends[table.n - 1] : 0) < 0) goto done;  /* exact size */
    table.ends = table.counts = NULL;  /* (the objects' buffers move as they are cut) */
    if (_PyBytes_Resize(&ends_obj, table.n * (Py_ssize_t)sizeof(int64_t)) < 0
        || PyByteArray_Resize(counts, table.n * (Py_ssize_t)sizeof(int64_t)) < 0) goto done;
    result = PyTuple_Pack(5, starts_obj, ids_obj, arena, ends_obj, counts);

done:
    shapes_free(&table);
    PyMem_RawFree(shape);
    Py_XDECREF(arena);
    Py_XDECREF(starts_obj);
    Py_XDECREF(ids_obj);
    Py_XDECREF(ends_obj);
    Py_XDECREF(counts);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *select_visible(PyObject *self, PyObject *args) {
    Py_buffer ids_v, tmpl_v, freq_v, verb_v;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &ids_v, &tmpl_v, &freq_v, &verb_v)) return NULL;
    PyObject *out = NULL;
    unsigned char *seen = NULL;
    const int32_t *ids = ids_v.buf;
    const int32_t *tmpl = tmpl_v.buf;
    const unsigned char *frequent = freq_v.buf;
    const int64_t *verbatim = verb_v.buf;
    Py_ssize_t n = ids_v.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t nids = tmpl_v.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t ntmpl = freq_v.len;
    Py_ssize_t nverb = verb_v.len / (Py_ssize_t)sizeof(int64_t);

    seen = PyMem_Calloc((size_t)(ntmpl ? ntmpl : 1), 1);
    Py_ssize_t cap = 1024, k = 0, vi = 0;
    int64_t *lines = PyMem_Malloc((size_t)cap * sizeof(int64_t));
    if (!seen || !lines) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        int visible;
        if (vi < nverb && verbatim[vi] == i) {
            visible = 1;
            vi++;
        } else {
            int32_t id = ids[i];
            if (id < 0 || id >= nids || tmpl[id] < 0 || tmpl[id] >= ntmpl) {
                PyErr_SetString(PyExc_ValueError, "shape id or template id out of range");
                goto done;
            }
            int32_t t = tmpl[id];
            visible = !frequent[t] || !seen[t];
            seen[t] = 1;
        }
        if (!visible) continue;
        if (k == cap) {
            cap *= 2;
            int64_t *grown = PyMem_Realloc(lines, (size_t)cap * sizeof(int64_t));
            if (!grown) { PyErr_NoMemory(); goto done; }
            lines = grown;
        }
        lines[k++] = i;
    }
    out = PyBytes_FromStringAndSize((const char *)lines, k * (Py_ssize_t)sizeof(int64_t));

done:
    PyMem_Free(seen);
    PyMem_Free(lines);
    PyBuffer_Release(&ids_v);
    PyBuffer_Release(&tmpl_v);
    PyBuffer_Release(&freq_v);
    PyBuffer_Release(&verb_v);
    return out;
}

/* The int64 array buffer of a bytes object holding k indexes (k <= cap), or NULL with an exception. */
static PyObject *int64_bytes(const int64_t *items, Py_ssize_t k) {
    return PyBytes_FromStringAndSize((const char *)items, k * (Py_ssize_t)sizeof(int64_t));
}

static PyObject *lines_with(PyObject *self, PyObject *args) {
    Py_buffer ids_v, flags_v;
    if (!PyArg_ParseTuple(args, "y*y*", &ids_v, &flags_v)) return NULL;
    const int32_t *ids = ids_v.buf;
    const unsigned char *flags = flags_v.buf;
    Py_ssize_t n = ids_v.len / (Py_ssize_t)sizeof(int32_t), k = 0;
    PyObject *out = NULL;
    int64_t *lines = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!lines) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= flags_v.len) {
            PyErr_SetString(PyExc_ValueError, "shape id out of range");
            goto done;
        }
        if (flags[ids[i]]) lines[k++] = i;
    }
    out = int64_bytes(lines, k);
done:
    PyMem_Free(lines);
    PyBuffer_Release(&ids_v);
    PyBuffer_Release(&flags_v);
    return out;
}

static int has_status(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t j = 0; j + 6 <= n; j++) {
        const unsigned char *p = memchr(s + j, '"', (size_t)(n - j - 5));
        if (!p) return 0;
        if (p[1] == ' ' && (p[2] == '4' || p[2] == '5') && p[3] - '0' < 10u && p[4] - '0' < 10u && p[5] == ' ')
            return 1;
        j = p - s;
    }
    return 0;
}

static PyObject *status_lines(PyObject *self, PyObject *args) {
    Py_buffer buf_v, starts_v, lines_v;
    if (!PyArg_ParseTuple(args, "y*y*y*", &buf_v, &starts_v, &lines_v)) return NULL;
    const unsigned char *buf = buf_v.buf;
    const int64_t *starts = starts_v.buf;
    const int64_t *lines = lines_v.buf;
    Py_ssize_t nstarts = starts_v.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n = lines_v.len / (Py_ssize_t)sizeof(int64_t), k = 0;
    PyObject *out = NULL;
    int64_t *found = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!found) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t line = lines[i];
        if (line < 0 || line + 1 >= nstarts || starts[line] > starts[line + 1] || starts[line + 1] > buf_v.len) {
            PyErr_SetString(PyExc_ValueError, "line index or offsets out of range");
            goto done;
        }
        if (has_status(buf + starts[line], (Py_ssize_t)(starts[line + 1] - starts[line]))) found[k++] = line;
    }
    out = int64_bytes(found, k);
done:
    PyMem_Free(found);
    PyBuffer_Release(&buf_v);
    PyBuffer_Release(&starts_v);
    PyBuffer_Release(&lines_v);
    return out;
}

/* The classes of an ASCII byte, a table lookup each: a digit, a hex letter (a-f, A-F), another letter, '_'. */
enum { C_DIGIT = 1, C_HEXL = 2, C_LETTER = 4, C_UNDER = 8 };
#define CLS_DIGITS C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT, C_DIGIT
#define CLS_HEXL6 C_HEXL | C_LETTER, C_HEXL | C_LETTER, C_HEXL | C_LETTER, C_HEXL | C_LETTER, C_HEXL | C_LETTER, C_HEXL | C_LETTER
#define CLS_L4 C_LETTER, C_LETTER, C_LETTER, C_LETTER
#define CLS_L20 CLS_L4, CLS_L4, CLS_L4, CLS_L4, CLS_L4
static const unsigned char byte_class[256] = {
    ['0'] = CLS_DIGITS,
    ['A'] = CLS_HEXL6, CLS_L20,
    ['_'] = C_UNDER,
    ['a'] = CLS_HEXL6, CLS_L20,
};
static inline int is_word(unsigned char c) { return byte_class[c] != 0; }
static inline int is_digit(unsigned char c) { return byte_class[c] & C_DIGIT; }
static inline int is_hex_letter(unsigned char c) { return byte_class[c] & C_HEXL; }
static inline int is_hex(unsigned char c) { return byte_class[c] & (C_DIGIT | C_HEXL); }
static inline int is_alnum(unsigned char c) { return byte_class[c] & (C_DIGIT | C_LETTER); }

#if SWAR_DIGITS
/* 0x80 in each byte of w that is an ASCII hex digit (0-9, a-f, A-F), 0 elsewhere (exact per byte: the
 * letters folded to lower case by | 0x20, which maps no other byte into a-f but A-F; bytes past ASCII
 * keep their high bit and are excluded as in digit_bytes). */
static inline uint64_t hex_bytes(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ULL, low7 = ones * 127, high = ones * 128;
    uint64_t x = (w | ones * 0x20) & low7;
    return digit_bytes(w) | (((ones * (127 + 'f' + 1) - x) & ~w & (x + ones * (127 - ('a' - 1)))) & high);
}
#endif

/* Where the run of hex digits from k ends (k itself when s[k] is none); *digit gets 1 when the run holds
 * a decimal digit. Eight bytes at a time where eight are left. */
static inline Py_ssize_t hex_span(const unsigned char *s, Py_ssize_t n, Py_ssize_t k, unsigned *digit) {
#if SWAR_DIGITS
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, s + k, 8);
        uint64_t d = digit_bytes(w), stop = ~hex_bytes(w) & 0x8080808080808080ULL;
        if (stop) {
            unsigned bits = (unsigned)__builtin_ctzll(stop) & ~7u;  /* 8 x the hex bytes before the first other one */
            if (bits && (d << (64 - bits))) *digit = 1;
            return k + (bits >> 3);
        }
        if (d) *digit = 1;
    }
#endif
    for (unsigned cls; k < n && ((cls = byte_class[s[k]]) & (C_DIGIT | C_HEXL)); k++)
        if (cls & C_DIGIT) *digit = 1;
    return k;
}

/* Where the match of MASK_RE starting at i ends, or -1 (alternatives tried in order, no backtracking). */
static Py_ssize_t mask_match(const unsigned char *s, Py_ssize_t n, Py_ssize_t i) {
    /* 0[xX][0-9a-fA-F]++ */
    if (s[i] == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex(s[i + 2])) {
        unsigned digit = 0;
        return hex_span(s, n, i + 2, &digit);
    }
    int after_non_alnum = i == 0 || !is_word(s[i - 1]) || s[i - 1] == '_';
    if (after_non_alnum && is_hex(s[i])) {
        /* the run of hex digits from i, [i, run), and whether it holds a digit: one pass */
        unsigned run_digit = 0;
        Py_ssize_t run = hex_span(s, n, i, &run_digit);
        /* (?<![0-9A-Za-z])(?=[0-9a-fA-F-]*\d)[0-9a-fA-F]++(?:-[0-9a-fA-F]++){3,}+(?![0-9A-Za-z]):
         * a uuid-like run of 4+ hex groups joined by '-', one of them holding a digit; tried only where
         * the first group is followed by '-' and a hex digit (else there is one group) */
        if (run + 1 < n && s[run] == '-' && is_hex(s[run + 1])) {
            int digit = run_digit != 0;  /* the lookahead: a digit among the hex digits and '-' from i */
            for (Py_ssize_t q = run; !digit && q < n && (is_hex(s[q]) || s[q] == '-'); q++)
                digit = is_digit(s[q]) != 0;
            Py_ssize_t k = run, groups = 1;
            unsigned any = 0;
            while (digit && k + 1 < n && s[k] == '-' && is_hex(s[k + 1])) {
                k = hex_span(s, n, k + 1, &any);
                groups++;
            }
            if (digit && groups >= 4 && (k == n || !is_word(s[k]) || s[k] == '_')) return k;
        }
        /* (?<![0-9A-Za-z])[a-fA-F]*+\d[0-9a-fA-F]*+\b: a hex word holding a digit, also right after
         * '_': the hex run from i holds a digit and a word ends with it */
        if (run_digit && (run == n || !is_word(s[run]))) return run;
    }
    /* \d+ */
    if (is_digit(s[i])) {
        Py_ssize_t k = i + 1;
        while (k < n && is_digit(s[k])) k++;
        return k;
    }
    return -1;
}

/* The mask of a shape between its spaces, for group_shapes: no match of MASK_RE takes in a space, looks
 * past one or behind one (a space is no word character, no hex digit and no '-'), so mask_into(s) is
 * the mask_into of each run between spaces, the spaces in between. The spaces are kept in `cuts`
 * (where each is in the shape and in the mask): a shape the previous one starts like, up to a space,
 * has the mask of that much already made, and only the rest is masked. */
typedef struct {
    Py_ssize_t in, out;  /* a space's offset in the shape and in its mask */
} Cut;

/* MASK_RE.sub(b"#", s[i:n]) written at o + k (never longer than s[i:n]), where i is 0 or follows a space;
 * returns where it ends in o. With cuts, each space copied is appended there (its offset in s and in
 * o; *ncuts of them before). A match starts only at a digit or at a hex letter that no letter or digit
 * precedes (every alternative but the two that start with a digit looks behind for that, and the two
 * others start with a hex digit, or with hex letters then a digit): the bytes in between are copied as
 * they are, a word's letters in one run. */
static inline __attribute__((always_inline)) Py_ssize_t mask_run(const unsigned char *s, Py_ssize_t n, Py_ssize_t i,
                                                                 char *o, Py_ssize_t k, Cut *cuts, Py_ssize_t *ncuts) {
    while (i < n) {
        unsigned char c = s[i];
        unsigned cls = byte_class[c];
        unsigned next = i + 1 < n ? byte_class[s[i + 1]] : 0;  /* the class of the byte after (0: none) */
        if (cls & C_DIGIT && !(next & (C_DIGIT | C_HEXL)) && (i + 1 == n || (s[i + 1] != '-' && (s[i + 1] | 0x20) != 'x'))) {
            o[k++] = '#';  /* a digit that no hex digit, '-' or x follows: a match of its own (a shape's digit run) */
            i++;
            continue;
        }
        if (!(cls & C_DIGIT)) {
            if (!(cls & C_LETTER)) {  /* no match starts here: not a word character, or '_' */
                if (cuts && c == ' ') {
                    cuts[*ncuts].in = i;
                    cuts[*ncuts].out = k;
                    ++*ncuts;
                }
                o[k++] = (char)c;
                i++;
                continue;
            }
            if (!(cls & C_HEXL) || (i > 0 && is_alnum(s[i - 1])) || (next & (C_HEXL | C_LETTER | C_DIGIT)) == C_LETTER) {
                /* a letter inside a word, one past f, or a hex letter a letter past f follows (no match
                 * starts there, nor inside the word): copy the word's letters */
                do {
                    o[k++] = (char)s[i++];
                } while (i < n && (byte_class[s[i]] & C_LETTER));
                continue;
            }
        }
        Py_ssize_t end = mask_match(s, n, i);
        if (end < 0) {
            o[k++] = (char)s[i++];
        } else {
            o[k++] = '#';
            i = end;
        }
    }
    return k;
}

/* MASK_RE.sub(b"#", s) into o (never longer than s); returns its length. */
static Py_ssize_t mask_into(const unsigned char *s, Py_ssize_t n, char *o) { return mask_run(s, n, 0, o, 0, NULL, NULL); }

/* A new bytes object: what `into` writes for the bytes `arg` (never longer than them). */
static PyObject *bytes_into(PyObject *arg, Py_ssize_t (*into)(const unsigned char *, Py_ssize_t, char *), const char *what) {
    if (!PyBytes_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "%s() takes bytes", what);
        return NULL;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(arg);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (!out) return NULL;
    Py_ssize_t k = into((const unsigned char *)PyBytes_AS_STRING(arg), n, PyBytes_AS_STRING(out));
    if (_PyBytes_Resize(&out, k) < 0) return NULL;
    return out;
}

static PyObject *mask(PyObject *self, PyObject *arg) { return bytes_into(arg, mask_into, "mask"); }

static int is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The word-level template key of s into o (never longer than s); returns its length. */
static Py_ssize_t words_into(const unsigned char *s, Py_ssize_t n, char *o) {
    Py_ssize_t k = 0, i = 0;
    for (;;) {
        while (i < n && is_space(s[i])) i++;
        if (i == n) break;
        Py_ssize_t start = i;
        int ident = 0;
        while (i < n && !is_space(s[i])) {
            unsigned char c = s[i];
            if (c == '0' || ((c == ':' || c == '/' || c == '=' || c == '@') && i + 1 < n && !is_space(s[i + 1]))) ident = 1;
            i++;
        }
        if (k) o[k++] = ' ';
        if (ident) {
            o[k++] = '#';
        } else {
            memcpy(o + k, s + start, (size_t)(i - start));
            k += i - start;
        }
    }
    return k;
}

static PyObject *words(PyObject *self, PyObject *arg) { return bytes_into(arg, words_into, "words"); }


/* Whether s[i..i+len) are hex digits (all within s). */
static int hex_digits_at(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t len) {
    if (i + len > n) return 0;
    for (Py_ssize_t k = i; k < i + len; k++)
        if (!is_hex(s[k])) return 0;
    return 1;
}

/* Where the match of signals.NUMBERS_RE starting at i ends, or -1 (alternatives tried in order). */
static Py_ssize_t numbers_match(const unsigned char *s, Py_ssize_t n, Py_ssize_t i) {
    if ((i == 0 || !is_alnum(s[i - 1])) && s[i] == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')
        && is_hex(s[i + 2])) {
        /* an address or hex literal: 0x and its hex digits, no letter or digit after them */
        Py_ssize_t k = i + 2;
        while (k < n && is_hex(s[k])) k++;
        if (k == n || !is_alnum(s[k])) return k;
    }
    if ((i == 0 || !is_alnum(s[i - 1])) && is_hex(s[i])) {
        /* a uuid: 8-4-4-4-12 hex digits, no letter or digit after it */
        static const Py_ssize_t groups[5] = {8, 4, 4, 4, 12};
        Py_ssize_t k = i;
        int g = 0;
        for (; g < 5; g++) {
            if (!hex_digits_at(s, n, k, groups[g])) break;
            k += groups[g];
            if (g < 4) {
                if (k >= n || s[k] != '-') break;
                k++;
            }
        }
        if (g == 5 && (k == n || !is_alnum(s[k]))) return k;
        /* a hex id: a whole run of 8 to 64 hex digits holding a decimal digit, no letter or digit after it */
        int digit = 0;
        k = i;
        while (k < n && is_hex(s[k]) && k - i <= 64) {
            digit |= is_digit(s[k]);
            k++;
        }
        if (digit && k - i >= 8 && k - i <= 64 && (k == n || !is_alnum(s[k]))) return k;
    }
    /* [0-9]+ */
    if (is_digit(s[i])) {
        Py_ssize_t k = i + 1;
        while (k < n && is_digit(s[k])) k++;
        return k;
    }
    return -1;
}

/* NUMBERS_RE.sub(b"#", s) into o (never longer than s); returns its length. */
static Py_ssize_t numbers_into(const unsigned char *s, Py_ssize_t n, char *o) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (!is_hex(c)) {  /* no match starts here: copy up to the next hex digit */
            o[k++] = (char)c;
            i++;
            continue;
        }
        Py_ssize_t end = numbers_match(s, n, i);
        if (end < 0) {
            o[k++] = (char)s[i++];
        } else {
            o[k++] = '#';
            i = end;
        }
    }
    return k;
}

static PyObject *mask_numbers(PyObject *self, PyObject *arg) { return bytes_into(arg, numbers_into, "mask_numbers"); }

/* The bytes of span [a, b) of s as compared by first_equal: the end pulled back over one '\n' then one '\r'
 * (body), then over spaces, tabs, CR, LF, VT and FF (rstrip). */
static Py_ssize_t span_end(const unsigned char *s, Py_ssize_t a, Py_ssize_t b, int body, int rstrip) {
    if (body) {
        if (b > a && s[b - 1] == '\n') b--;
        if (b > a && s[b - 1] == '\r') b--;
    }
    if (rstrip)
        while (b > a && (s[b - 1] == ' ' || (s[b - 1] >= '\t' && s[b - 1] <= '\r'))) b--;
    return b;
}

/* 8 bytes of s from i (any alignment) as one word. */
static uint64_t load8(const unsigned char *s) {
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

#define ONES8 0x0101010101010101ULL

/* A word of 8 bytes with every ASCII digit made '0' (digits_alike), a byte at a time by SWAR. */
static uint64_t digits_to_zero8(uint64_t w) {
    uint64_t low = w & (0x7F * ONES8);
    uint64_t ge0 = (low + 0x50 * ONES8) & (0x80 * ONES8);  /* byte >= '0' (of its low 7 bits) */
    uint64_t gt9 = (low + 0x46 * ONES8) & (0x80 * ONES8);  /* byte > '9' */
    uint64_t digit = ge0 & ~gt9 & ~w & (0x80 * ONES8);     /* and an ASCII byte */
    uint64_t mask = (digit >> 7) * 0xFF;
    return (w & ~mask) | ('0' * ONES8 & mask);
}

static uint64_t span_hash(const unsigned char *s, Py_ssize_t a, Py_ssize_t b, int alike) {
    uint64_t h = 1469598103934665603ULL;
    Py_ssize_t i = a;
    for (; i + 8 <= b; i += 8) {
        uint64_t w = load8(s + i);
        if (alike) w = digits_to_zero8(w);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    for (; i < b; i++) {
        unsigned char c = s[i];
        if (alike && c >= '0' && c <= '9') c = '0';
        h = (h ^ c) * 1099511628211ULL;
    }
    h ^= h >> 33;  /* mixed (MurmurHash3's finaliser) */
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Whether s[a:a+len] and s[e:e+len] are equal (alike: any ASCII digit equal to any other). */
static int spans_equal(const unsigned char *s, Py_ssize_t a, Py_ssize_t e, Py_ssize_t len, int alike) {
    if (!alike) return memcmp(s + a, s + e, (size_t)len) == 0;
    Py_ssize_t i = 0;
    for (; i + 8 <= len; i += 8)
        if (digits_to_zero8(load8(s + a + i)) != digits_to_zero8(load8(s + e + i))) return 0;
    for (; i < len; i++) {
        unsigned char x = s[a + i], y = s[e + i];
        if (x != y && !(is_digit(x) && is_digit(y))) return 0;
    }
    return 1;
}

/* Where the text of s[a:b] (a line) ends once a reducer's " \xc3\x97N" count at its end is left out
 * (signals.COUNT_RE: " x" then a digit, digits and commas, spaces, tabs and CRs to the end): the " x" can
 * only be right before the digits and commas that come before the trailing spaces. */
static Py_ssize_t count_cut(const unsigned char *s, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t k = b;
    while (k > a && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\r')) k--;
    while (k > a && (is_digit(s[k - 1]) || s[k - 1] == ',')) k--;
    if (k - 3 >= a && s[k - 3] == ' ' && s[k - 2] == 0xC3 && s[k - 1] == 0x97 && k < b && is_digit(s[k])) return k - 3;
    return b;
}

/* Whether starts/ends (int64 arrays, as Py_buffers) are n spans each inside [0, len): else a ValueError
 * "<what>: ..." is set and 0 returned. ``max`` bounds n (UINT32_MAX where a span's number is kept in 32
 * bits). Sets *longest, when given, to the longest span. */
static int spans_ok(const char *what, const Py_buffer *sv, const Py_buffer *ev, Py_ssize_t len, Py_ssize_t max,
                    Py_ssize_t *longest) {
    const int64_t *starts = sv->buf, *ends = ev->buf;
    Py_ssize_t n = sv->len / (Py_ssize_t)sizeof(int64_t), most = 0;
    if (sv->len != n * (Py_ssize_t)sizeof(int64_t) || ev->len != sv->len) {
        PyErr_Format(PyExc_ValueError, "%s: starts and ends must be int64 arrays of one length", what);
        return 0;
    }
    if (n >= max) {
        PyErr_Format(PyExc_ValueError, "%s: too many spans", what);
        return 0;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (starts[k] < 0 || starts[k] > ends[k] || ends[k] > len) {
            PyErr_Format(PyExc_ValueError, "%s: a span out of the buffer", what);
            return 0;
        }
        if (ends[k] - starts[k] > most) most = (Py_ssize_t)(ends[k] - starts[k]);
    }
    if (longest) *longest = most;
    return 1;
}

/* first_template(buf, starts, ends) -> bytes of native int64: for each span (a line, no newline), the
 * index of the first span of the same signal template (signals.templates: its count left out, numbers
 * masked as mask_numbers does, trailing whitespace left out), each template written once. */
static PyObject *first_template(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, ev;
    if (!PyArg_ParseTuple(args, "y*y*y*", &bv, &sv, &ev)) return NULL;
    const unsigned char *s = bv.buf;
    const int64_t *starts = sv.buf, *ends = ev.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t), longest = 0;
    PyObject *out = NULL;
    uint32_t *slots = NULL;  /* 1 + the number of each distinct template, 0: free */
    uint64_t *hashes = NULL;
    int64_t *at = NULL;
    char *arena = NULL;
    if (!spans_ok("first_template", &sv, &ev, bv.len, (Py_ssize_t)UINT32_MAX, &longest)) goto done;
    Py_ssize_t nslots = 16, used = 0, capacity = longest + 1;
    while (nslots < n + n / 2) nslots *= 2;
    slots = PyMem_Calloc((size_t)nslots, sizeof(uint32_t));
    hashes = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
    at = PyMem_Malloc((size_t)(n + 1) * sizeof(int64_t));  /* where each distinct template is in the arena */
    arena = PyMem_Malloc((size_t)capacity);
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!slots || !hashes || !at || !arena || !out) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        Py_CLEAR(out);
        goto done;
    }
    int64_t *first = (int64_t *)PyBytes_AS_STRING(out);
    Py_ssize_t distinct = 0;
    at[0] = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t a = (Py_ssize_t)starts[k], b = count_cut(s, a, (Py_ssize_t)ends[k]);
        while (b > a && (s[b - 1] == ' ' || (s[b - 1] >= '\t' && s[b - 1] <= '\r'))) b--;  /* rstrip */
        if (used + (b - a) > capacity) {  /* room for this one's template (never longer than its text) */
            Py_ssize_t more = capacity * 2 > used + (b - a) ? capacity * 2 : used + (b - a);
            char *bigger = PyMem_Realloc(arena, (size_t)more);
            if (!bigger) {
                PyErr_NoMemory();
                Py_CLEAR(out);
                goto done;
            }
            arena = bigger;
            capacity = more;
        }
        char *t = arena + used;
        Py_ssize_t len = numbers_into(s + a, b - a, t);
        uint64_t h = span_hash((const unsigned char *)t, 0, len, 0);
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(nslots - 1));
        for (;;) {
            Py_ssize_t e = (Py_ssize_t)slots[slot];
            if (!e) {  /* a new template: kept in the arena */
                slots[slot] = (uint32_t)(distinct + 1);
                hashes[distinct] = h;
                first[k] = k;
                at[distinct + 1] = used + len;  /* entry e's template: arena[at[e]:at[e + 1]] */
                distinct++;
                used += len;
                break;
            }
            e--;
            if (hashes[e] == h && at[e + 1] - at[e] == len && memcmp(arena + at[e], t, (size_t)len) == 0) {
                first[k] = -1 - e;  /* resolved below */
                break;
            }
            slot = (slot + 1) & (nslots - 1);
        }
    }
    /* the entries' first spans, in order of entry: an entry was made by a span whose first[k] == k */
    {
        Py_ssize_t e = 0;
        int64_t *firsts = (int64_t *)hashes;  /* no hash is read any more: entry -> its first span */
        for (Py_ssize_t k = 0; k < n; k++)
            if (first[k] >= 0) firsts[e++] = k;
        for (Py_ssize_t k = 0; k < n; k++)
            if (first[k] < 0) first[k] = firsts[-1 - first[k]];
    }
done:
    PyMem_Free(slots);
    PyMem_Free(hashes);
    PyMem_Free(at);
    PyMem_Free(arena);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    return out;
}

/* first_equal(buf, starts, ends, digits_alike, body, rstrip) -> bytes of native int64: for each span
 * buf[starts[k]:ends[k]] (int64 arrays; the end as span_end makes it), the index of the first span of
 * equal bytes (with digits_alike, any ASCII digit equal to any other). */
static PyObject *first_equal(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, ev;
    int alike, body, rstrip;
    if (!PyArg_ParseTuple(args, "y*y*y*ppp", &bv, &sv, &ev, &alike, &body, &rstrip)) return NULL;
    const unsigned char *s = bv.buf;
    const int64_t *starts = sv.buf, *ends = ev.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t);
    PyObject *out = NULL;
    uint32_t *slots = NULL;  /* 1 + the index of the first span of each distinct text, 0: free */
    uint64_t *hashes = NULL;
    if (!spans_ok("first_equal", &sv, &ev, bv.len, (Py_ssize_t)UINT32_MAX, NULL)) goto done;
    Py_ssize_t nslots = 16;
    while (nslots < n + n / 2) nslots *= 2;
    slots = PyMem_Calloc((size_t)nslots, sizeof(uint32_t));
    hashes = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!slots || !hashes || !out) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        Py_CLEAR(out);
        goto done;
    }
    int64_t *first = (int64_t *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t a = (Py_ssize_t)starts[k], b = span_end(s, a, (Py_ssize_t)ends[k], body, rstrip);
        uint64_t h = span_hash(s, a, b, alike);
        hashes[k] = h;
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(nslots - 1));
        for (;;) {
            Py_ssize_t e = (Py_ssize_t)slots[slot];
            if (!e) {
                slots[slot] = (uint32_t)(k + 1);
                first[k] = k;
                break;
            }
            e--;
            Py_ssize_t ea = (Py_ssize_t)starts[e];
            if (hashes[e] == h && span_end(s, ea, (Py_ssize_t)ends[e], body, rstrip) - ea == b - a &&
                spans_equal(s, a, ea, b - a, alike)) {
                first[k] = e;
                break;
            }
            slot = (slot + 1) & (nslots - 1);
        }
    }
    Py_END_ALLOW_THREADS
done:
    PyMem_Free(slots);
    PyMem_Free(hashes);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    return out;
}

static void *scratch_grow(void *p, size_t old, size_t size);  /* below, with the text type's scratch arrays */
static void scratch_free(void *p, size_t size);

/* A table of distinct keys by hash (open addressing, grown as it fills): the slots hold 1 + an entry's
 * number (0: free); hashes[e] is entry e's hash. */
typedef struct {
    uint32_t *slots;
    uint64_t *hashes;
    Py_ssize_t nslots, used, cap;
} KeyTable;

static int keytable_init(KeyTable *t) {
    t->nslots = 1024;
    t->used = 0;
    t->cap = 256;
    t->slots = PyMem_Calloc((size_t)t->nslots, sizeof(uint32_t));
    t->hashes = PyMem_Malloc((size_t)t->cap * sizeof(uint64_t));
    if (!t->slots || !t->hashes) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void keytable_free(KeyTable *t) {
    PyMem_Free(t->slots);
    PyMem_Free(t->hashes);
}

/* Room for one more entry: the slots doubled (and refilled) past half full, the hashes grown. */
static int keytable_room(KeyTable *t) {
    if (t->used + 1 > t->cap) {
        Py_ssize_t cap = t->cap * 2;
        uint64_t *more = PyMem_Realloc(t->hashes, (size_t)cap * sizeof(uint64_t));
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        t->hashes = more;
        t->cap = cap;
    }
    if ((t->used + 1) * 2 > t->nslots) {
        Py_ssize_t nslots = t->nslots * 2;
        uint32_t *slots = PyMem_Calloc((size_t)nslots, sizeof(uint32_t));
        if (!slots) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t e = 0; e < t->used; e++) {
            Py_ssize_t slot = (Py_ssize_t)(t->hashes[e] & (uint64_t)(nslots - 1));
            while (slots[slot]) slot = (slot + 1) & (nslots - 1);
            slots[slot] = (uint32_t)(e + 1);
        }
        PyMem_Free(t->slots);
        t->slots = slots;
        t->nslots = nslots;
    }
    return 0;
}

/* template_groups(buf, starts, order, last_nl) -> (of_line, members, bounds, spans): the lines ``order`` names
 * (int32 line indexes; ``starts``: int64 line starts, n + 1 of them; a line ends before its newline, the
 * last one at the end when ``last_nl`` is false) grouped by signal template as first_template groups them,
 * the groups numbered in order of their first line in ``order``: the group of each line (int32, n of them,
 * -1 for a line ``order`` does not name), the lines of each group in the order of ``order``, one group
 * after another (int32), where each group's lines begin in that, then their end (int64), and the start and
 * end of each group's first line (by place) and of its last (int64, four a group). */
static PyObject *template_groups(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, ov;
    int last_nl;
    if (!PyArg_ParseTuple(args, "y*y*y*p", &bv, &sv, &ov, &last_nl)) return NULL;
    const unsigned char *s = bv.buf;
    const int64_t *starts = sv.buf;
    const int32_t *order = ov.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t) - 1, m = ov.len / (Py_ssize_t)sizeof(int32_t), longest = 0;
    PyObject *of_line = NULL, *members = NULL, *bounds = NULL, *spans = NULL, *out = NULL;
    KeyTable table = {0};
    int64_t *at = NULL;  /* where each distinct template is in the arena, then its end */
    char *arena = NULL;  /* the distinct templates, one after another: scratch pages of its own (scratch_grow) */
    size_t capacity = 0, used = 0;
    if (n < 0 || n >= (Py_ssize_t)INT32_MAX || m >= (Py_ssize_t)INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "template_groups: no line starts, or too many lines");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (starts[i] < 0 || starts[i] > starts[i + 1] || starts[i + 1] > bv.len) {
            PyErr_SetString(PyExc_ValueError, "template_groups: a line out of the buffer");
            goto done;
        }
    for (Py_ssize_t k = 0; k < m; k++) {
        if (order[k] < 0 || order[k] >= n) {
            PyErr_SetString(PyExc_ValueError, "template_groups: a line index out of range");
            goto done;
        }
        if (starts[order[k] + 1] - starts[order[k]] > longest) longest = (Py_ssize_t)(starts[order[k] + 1] - starts[order[k]]);
    }
    if (keytable_init(&table) < 0) goto done;
    at = PyMem_Malloc((size_t)(table.cap + 1) * sizeof(int64_t));
    capacity = (size_t)longest + 1 > 65536 ? (size_t)longest + 1 : 65536;
    arena = scratch_grow(NULL, 0, capacity);
    of_line = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    members = PyBytes_FromStringAndSize(NULL, m * (Py_ssize_t)sizeof(int32_t));
    if (!at || !arena || !of_line || !members) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int32_t *line_group = (int32_t *)PyBytes_AS_STRING(of_line);  /* the group of each line, made as they come */
    for (Py_ssize_t i = 0; i < n; i++) line_group[i] = -1;
    at[0] = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i = order[k], a = (Py_ssize_t)starts[i], e = (Py_ssize_t)starts[i + 1];
        if (i + 1 < n || last_nl) e--;  /* before its newline */
        if (e < a) e = a;
        Py_ssize_t b = count_cut(s, a, e);
        while (b > a && (s[b - 1] == ' ' || (s[b - 1] >= '\t' && s[b - 1] <= '\r'))) b--;  /* rstrip */
        if (used + (size_t)(b - a) > capacity) {  /* room for this one's template (never longer than its text) */
            size_t more = capacity * 2 > used + (size_t)(b - a) ? capacity * 2 : used + (size_t)(b - a);
            char *bigger = scratch_grow(NULL, 0, more);
            if (!bigger) {
                PyErr_NoMemory();
                goto done;
            }
            memcpy(bigger, arena, used);  /* only what is written: the pages past it stay untouched */
            scratch_free(arena, capacity);
            arena = bigger;
            capacity = more;
        }
        char *mine = arena + used;
        Py_ssize_t len = numbers_into(s + a, b - a, mine);
        uint64_t h = span_hash((const unsigned char *)mine, 0, len, 0);
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(table.nslots - 1));
        for (;;) {
            Py_ssize_t found = (Py_ssize_t)table.slots[slot];
            if (!found) {  /* a new template: kept in the arena */
                Py_ssize_t old_cap = table.cap;
                if (keytable_room(&table) < 0) goto done;
                if (table.cap != old_cap) {
                    int64_t *bigger = PyMem_Realloc(at, (size_t)(table.cap + 1) * sizeof(int64_t));
                    if (!bigger) {
                        PyErr_NoMemory();
                        goto done;
                    }
                    at = bigger;
                }
                slot = (Py_ssize_t)(h & (uint64_t)(table.nslots - 1));  /* the slots may have been remade */
                while (table.slots[slot]) slot = (slot + 1) & (table.nslots - 1);
                table.slots[slot] = (uint32_t)(table.used + 1);
                table.hashes[table.used] = h;
                at[table.used + 1] = (int64_t)(used + (size_t)len);  /* entry e's template: arena[at[e]:at[e + 1]] */
                line_group[i] = (int32_t)table.used;
                table.used++;
                used += (size_t)len;
                break;
            }
            found--;
            if (table.hashes[found] == h && at[found + 1] - at[found] == len &&
                memcmp(arena + at[found], mine, (size_t)len) == 0) {
                line_group[i] = (int32_t)found;
                break;
            }
            slot = (slot + 1) & (table.nslots - 1);
        }
    }
    {
        Py_ssize_t g = table.used;
        bounds = PyBytes_FromStringAndSize(NULL, (g + 1) * (Py_ssize_t)sizeof(int64_t));
        if (!bounds) goto done;
        int64_t *bound = (int64_t *)PyBytes_AS_STRING(bounds);
        int32_t *member = (int32_t *)PyBytes_AS_STRING(members);
        memset(bound, 0, (size_t)(g + 1) * sizeof(int64_t));
        for (Py_ssize_t k = 0; k < m; k++) bound[line_group[order[k]] + 1]++;  /* a line named twice: one group */
        for (Py_ssize_t j = 0; j < g; j++) bound[j + 1] += bound[j];
        int64_t *next = at;  /* no template is read any more: where each group's next line goes */
        memcpy(next, bound, (size_t)g * sizeof(int64_t));
        for (Py_ssize_t k = 0; k < m; k++) member[next[line_group[order[k]]]++] = order[k];
        spans = PyBytes_FromStringAndSize(NULL, 4 * g * (Py_ssize_t)sizeof(int64_t));
        if (!spans) goto done;
        int64_t *span = (int64_t *)PyBytes_AS_STRING(spans);
        for (Py_ssize_t j = 0; j < g; j++) {  /* the group's first and last line (by place): start and end of each */
            int32_t low = member[bound[j]], high = low;
            for (int64_t k = bound[j] + 1; k < bound[j + 1]; k++) {
                if (member[k] < low) low = member[k];
                if (member[k] > high) high = member[k];
            }
            span[4 * j] = starts[low];
            span[4 * j + 1] = starts[low + 1] - ((low + 1 < n || last_nl) ? 1 : 0);
            span[4 * j + 2] = starts[high];
            span[4 * j + 3] = starts[high + 1] - ((high + 1 < n || last_nl) ? 1 : 0);
        }
    }
    out = PyTuple_Pack(4, of_line, members, bounds, spans);
done:
    Py_XDECREF(of_line);
    Py_XDECREF(members);
    Py_XDECREF(bounds);
    Py_XDECREF(spans);
    keytable_free(&table);
    PyMem_Free(at);
    scratch_free(arena, capacity);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ov);
    return out;
}

/* equal_groups(buf, starts, lines, digits_alike) -> (groups, firsts): the lines ``lines`` names (int32 line
 * indexes; ``starts``: int64 line starts, n + 1 of them), each a line's bytes without its newline, then
 * without a '\r' (as first_equal's body), grouped by equal bytes (digits_alike: any ASCII digit equal to
 * any other): the group of each (int32, numbered in order of first appearance) and the place in ``lines``
 * of each group's first (int64). */
static PyObject *equal_groups(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, lv;
    int alike;
    if (!PyArg_ParseTuple(args, "y*y*y*p", &bv, &sv, &lv, &alike)) return NULL;
    const unsigned char *s = bv.buf;
    const int64_t *starts = sv.buf;
    const int32_t *lines = lv.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t) - 1, m = lv.len / (Py_ssize_t)sizeof(int32_t);
    PyObject *groups = NULL, *firsts = NULL, *out = NULL;
    KeyTable table = {0};
    int64_t *first = NULL;  /* the place of each group's first */
    if (n < 0 || m >= (Py_ssize_t)INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "equal_groups: no line starts, or too many lines");
        goto done;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        int32_t i = lines[k];
        if (i < 0 || i >= n || starts[i] < 0 || starts[i] > starts[i + 1] || starts[i + 1] > bv.len) {
            PyErr_SetString(PyExc_ValueError, "equal_groups: a line out of range");
            goto done;
        }
    }
    if (keytable_init(&table) < 0) goto done;
    first = PyMem_Malloc((size_t)table.cap * sizeof(int64_t));
    groups = PyBytes_FromStringAndSize(NULL, m * (Py_ssize_t)sizeof(int32_t));
    if (!first || !groups) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int32_t *group = (int32_t *)PyBytes_AS_STRING(groups);
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t i = lines[k], a = (Py_ssize_t)starts[i], b = span_end(s, a, (Py_ssize_t)starts[i + 1], 1, 0);
        uint64_t h = span_hash(s, a, b, alike);
        Py_ssize_t slot = (Py_ssize_t)(h & (uint64_t)(table.nslots - 1));
        for (;;) {
            Py_ssize_t found = (Py_ssize_t)table.slots[slot];
            if (!found) {
                Py_ssize_t old_cap = table.cap;
                if (keytable_room(&table) < 0) goto done;
                if (table.cap != old_cap) {
                    int64_t *bigger = PyMem_Realloc(first, (size_t)table.cap * sizeof(int64_t));
                    if (!bigger) {
                        PyErr_NoMemory();
                        goto done;
                    }
                    first = bigger;
                }
                slot = (Py_ssize_t)(h & (uint64_t)(table.nslots - 1));
                while (table.slots[slot]) slot = (slot + 1) & (table.nslots - 1);
                table.slots[slot] = (uint32_t)(table.used + 1);
                table.hashes[table.used] = h;
                first[table.used] = k;
                group[k] = (int32_t)table.used;
                table.used++;
                break;
            }
            found--;
            Py_ssize_t fa = (Py_ssize_t)starts[lines[first[found]]];
            Py_ssize_t fb = span_end(s, fa, (Py_ssize_t)starts[lines[first[found]] + 1], 1, 0);
            if (table.hashes[found] == h && fb - fa == b - a && spans_equal(s, a, fa, b - a, alike)) {
                group[k] = (int32_t)found;
                break;
            }
            slot = (slot + 1) & (table.nslots - 1);
        }
    }
    firsts = PyBytes_FromStringAndSize((const char *)first, table.used * (Py_ssize_t)sizeof(int64_t));
    if (firsts) out = PyTuple_Pack(2, groups, firsts);
done:
    Py_XDECREF(groups);
    Py_XDECREF(firsts);
    keytable_free(&table);
    PyMem_Free(first);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&lv);
    return out;
}

/* ---- SHA-256 of two messages at once (SHA-NI, the two compressions interleaved) ---- */
#if defined(__x86_64__) && defined(__GNUC__)
#define SHA_PAIR 1
#include <immintrin.h>

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
static const uint32_t sha_h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

typedef struct { __m128i abef, cdgh; } ShaLane;  /* a state as SHA-NI holds it */

__attribute__((target("sha,sse4.1,ssse3")))
static inline void sha_lane_load(ShaLane *l, const uint32_t h[8]) {
    __m128i tmp = _mm_loadu_si128((const __m128i *)h);            /* h0 h1 h2 h3 */
    __m128i s1 = _mm_loadu_si128((const __m128i *)(h + 4));       /* h4 h5 h6 h7 */
    tmp = _mm_shuffle_epi32(tmp, 0xB1);                           /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                             /* EFGH */
    l->abef = _mm_alignr_epi8(tmp, s1, 8);                        /* ABEF */
    l->cdgh = _mm_blend_epi16(s1, tmp, 0xF0);                     /* CDGH */
}

__attribute__((target("sha,sse4.1,ssse3")))
static inline void sha_lane_store(const ShaLane *l, uint32_t h[8]) {
    __m128i tmp = _mm_shuffle_epi32(l->abef, 0x1B);               /* FEBA */
    __m128i s1 = _mm_shuffle_epi32(l->cdgh, 0xB1);                /* DCHG */
    _mm_storeu_si128((__m128i *)h, _mm_blend_epi16(tmp, s1, 0xF0));        /* DCBA */
    _mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(s1, tmp, 8));     /* HGFE */
}

/* One 64-byte block into each lane (b NULL: lane a only). */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks2(ShaLane *a, const unsigned char *pa, ShaLane *b, const unsigned char *pb) {
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i wa[4], wb[4];
    __m128i a0 = a->abef, a1 = a->cdgh, b0 = b ? b->abef : a0, b1 = b ? b->cdgh : a1;
    const __m128i sa0 = a0, sa1 = a1, sb0 = b0, sb1 = b1;
    for (int j = 0; j < 16; j++) {
        __m128i k = _mm_loadu_si128((const __m128i *)(sha_k + 4 * j));
        __m128i xa, xb;
        if (j < 4) {
            xa = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 16 * j)), mask);
            xb = b ? _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 16 * j)), mask) : xa;
        } else {  /* W_j = msg2(msg1(W_j-4, W_j-3) + alignr(W_j-1, W_j-2, 4), W_j-1) */
            xa = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(wa[j & 3], wa[(j + 1) & 3]),
                                                    _mm_alignr_epi8(wa[(j + 3) & 3], wa[(j + 2) & 3], 4)), wa[(j + 3) & 3]);
            xb = b ? _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(wb[j & 3], wb[(j + 1) & 3]),
                                                        _mm_alignr_epi8(wb[(j + 3) & 3], wb[(j + 2) & 3], 4)), wb[(j + 3) & 3])
                   : xa;
        }
        wa[j & 3] = xa;
        wb[j & 3] = xb;
        __m128i ma = _mm_add_epi32(xa, k), mb = _mm_add_epi32(xb, k);
        a1 = _mm_sha256rnds2_epu32(a1, a0, ma);
        if (b) b1 = _mm_sha256rnds2_epu32(b1, b0, mb);
        a0 = _mm_sha256rnds2_epu32(a0, a1, _mm_shuffle_epi32(ma, 0x0E));
        if (b) b0 = _mm_sha256rnds2_epu32(b0, b1, _mm_shuffle_epi32(mb, 0x0E));
    }
    a->abef = _mm_add_epi32(a0, sa0);
    a->cdgh = _mm_add_epi32(a1, sa1);
    if (b) {
        b->abef = _mm_add_epi32(b0, sb0);
        b->cdgh = _mm_add_epi32(b1, sb1);
    }
}


#define SHA_LOAD(w, p, j) w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 16 * (j))), mask)
#define SHA_SCHED(w0, w1, w2, w3) w0 = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4)), w3)
#define SHA_RNDS(s0, s1, w, j) do { \
        __m128i m_ = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)(sha_k + 4 * (j)))); \
        s1 = _mm_sha256rnds2_epu32(s1, s0, m_); \
        s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m_, 0x0E)); \
    } while (0)
/* Four rounds of each lane: group j with message vectors (w0: the one of group j) */
#define SHA_GROUP2(j, x0, x1, x2, x3, y0, y1, y2, y3) do { \
        if ((j) >= 4) { SHA_SCHED(x0, x1, x2, x3); SHA_SCHED(y0, y1, y2, y3); } \
        SHA_RNDS(a0, a1, x0, j); \
        SHA_RNDS(b0, b1, y0, j); \
    } while (0)

/* One 64-byte block into each of two lanes, both compressions interleaved (SHA-NI's rounds wait on
 * each other within a lane: two independent lanes keep the unit busy). */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks_pair(ShaLane *a, const unsigned char *pa, ShaLane *b, const unsigned char *pb) {
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i a0 = a->abef, a1 = a->cdgh, b0 = b->abef, b1 = b->cdgh;
    const __m128i sa0 = a0, sa1 = a1, sb0 = b0, sb1 = b1;
    __m128i x0, x1, x2, x3, y0, y1, y2, y3;
    SHA_LOAD(x0, pa, 0); SHA_LOAD(x1, pa, 1); SHA_LOAD(x2, pa, 2); SHA_LOAD(x3, pa, 3);
    SHA_LOAD(y0, pb, 0); SHA_LOAD(y1, pb, 1); SHA_LOAD(y2, pb, 2); SHA_LOAD(y3, pb, 3);
    SHA_GROUP2(0, x0, x1, x2, x3, y0, y1, y2, y3);
    SHA_GROUP2(1, x1, x2, x3, x0, y1, y2, y3, y0);
    SHA_GROUP2(2, x2, x3, x0, x1, y2, y3, y0, y1);
    SHA_GROUP2(3, x3, x0, x1, x2, y3, y0, y1, y2);
    SHA_GROUP2(4, x0, x1, x2, x3, y0, y1, y2, y3);
    SHA_GROUP2(5, x1, x2, x3, x0, y1, y2, y3, y0);
    SHA_GROUP2(6, x2, x3, x0, x1, y2, y3, y0, y1);
    SHA_GROUP2(7, x3, x0, x1, x2, y3, y0, y1, y2);
    SHA_GROUP2(8, x0, x1, x2, x3, y0, y1, y2, y3);
    SHA_GROUP2(9, x1, x2, x3, x0, y1, y2, y3, y0);
    SHA_GROUP2(10, x2, x3, x0, x1, y2, y3, y0, y1);
    SHA_GROUP2(11, x3, x0, x1, x2, y3, y0, y1, y2);
    SHA_GROUP2(12, x0, x1, x2, x3, y0, y1, y2, y3);
    SHA_GROUP2(13, x1, x2, x3, x0, y1, y2, y3, y0);
    SHA_GROUP2(14, x2, x3, x0, x1, y2, y3, y0, y1);
    SHA_GROUP2(15, x3, x0, x1, x2, y3, y0, y1, y2);
    a->abef = _mm_add_epi32(a0, sa0);
    a->cdgh = _mm_add_epi32(a1, sa1);
    b->abef = _mm_add_epi32(b0, sb0);
    b->cdgh = _mm_add_epi32(b1, sb1);
}

/* A message read as a sequence of spans of base (starts/ends, n of them), a block at a time. */
typedef struct {
    const unsigned char *base;
    const int64_t *starts, *ends;
    Py_ssize_t n, span;        /* the spans, the one being read */
    int64_t at;                /* where in base the next byte is (within span) */
    uint64_t total;            /* bytes handed out */
    unsigned char block[64];
} ShaFeed;

static void sha_feed_init(ShaFeed *f, const unsigned char *base, const int64_t *starts, const int64_t *ends, Py_ssize_t n) {
    f->base = base; f->starts = starts; f->ends = ends; f->n = n; f->span = 0; f->total = 0;
    while (f->span < n && starts[f->span] >= ends[f->span]) f->span++;
    f->at = f->span < n ? starts[f->span] : 0;
}

/* The next full block (a pointer into base when it lies in one span, else gathered), or NULL when
 * fewer than 64 bytes are left: they are then in f->block, their number returned in *left. */
static const unsigned char *sha_feed_next(ShaFeed *f, Py_ssize_t *left) {
    if (f->span < f->n && f->ends[f->span] - f->at >= 64) {
        const unsigned char *p = f->base + f->at;
        f->at += 64;
        f->total += 64;
        if (f->at == f->ends[f->span]) {
            f->span++;
            while (f->span < f->n && f->starts[f->span] >= f->ends[f->span]) f->span++;
            if (f->span < f->n) f->at = f->starts[f->span];
        }
        return p;
    }
    Py_ssize_t got = 0;
    while (got < 64 && f->span < f->n) {
        int64_t take = f->ends[f->span] - f->at;
        if (take > 64 - got) take = 64 - got;
        memcpy(f->block + got, f->base + f->at, (size_t)take);
        got += take;
        f->at += take;
        if (f->at == f->ends[f->span]) {
            f->span++;
            while (f->span < f->n && f->starts[f->span] >= f->ends[f->span]) f->span++;
            if (f->span < f->n) f->at = f->starts[f->span];
        }
    }
    f->total += (uint64_t)got;
    if (got == 64) return f->block;
    *left = got;
    return NULL;
}

/* The padding of a message whose last left bytes (< 64) are in block: one or two blocks more. */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha_finish(ShaLane *l, unsigned char block[64], Py_ssize_t left, uint64_t total, unsigned char out[32]) {
    unsigned char pad[128];
    memcpy(pad, block, (size_t)left);
    pad[left] = 0x80;
    Py_ssize_t size = left + 1 + 8 <= 64 ? 64 : 128;
    memset(pad + left + 1, 0, (size_t)(size - left - 1));
    uint64_t bits = total * 8;
    for (int i = 0; i < 8; i++) pad[size - 1 - i] = (unsigned char)(bits >> (8 * i));
    sha_blocks2(l, pad, NULL, NULL);
    if (size == 128) sha_blocks2(l, pad + 64, NULL, NULL);
    uint32_t h[8];
    sha_lane_store(l, h);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}

/* The SHA-256 of two messages, each spans of a buffer, their blocks compressed two at a time. */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_two_spans(ShaFeed *fa, ShaFeed *fb, unsigned char out_a[32], unsigned char out_b[32]) {
    ShaLane la, lb;
    sha_lane_load(&la, sha_h0);
    sha_lane_load(&lb, sha_h0);
    Py_ssize_t left_a = 0, left_b = 0;
    const unsigned char *pa = sha_feed_next(fa, &left_a), *pb = sha_feed_next(fb, &left_b);
    while (pa && pb) {
        sha_blocks_pair(&la, pa, &lb, pb);
        pa = sha_feed_next(fa, &left_a);
        pb = sha_feed_next(fb, &left_b);
    }
    for (; pa; pa = sha_feed_next(fa, &left_a)) sha_blocks2(&la, pa, NULL, NULL);
    for (; pb; pb = sha_feed_next(fb, &left_b)) sha_blocks2(&lb, pb, NULL, NULL);
    sha_finish(&la, fa->block, left_a, fa->total, out_a);
    sha_finish(&lb, fb->block, left_b, fb->total, out_b);
}
#endif

static int sha_pair_ok = 0;  /* the CPU has SHA-NI (PyInit__kernel) */

/* sha256_pair(a, b, starts, ends) -> (sha256 of a, sha256 of b's spans joined), 32 bytes each, or None
 * where the CPU has no SHA-NI: the two hashes in one pass, their blocks compressed two at a time (a
 * packet's raw_sha256 and its big ref's blob name: almost the same bytes, hashed without the GIL). */
static PyObject *sha256_pair(PyObject *self, PyObject *args) {
    Py_buffer av, bv, sv, ev;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &av, &bv, &sv, &ev)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *starts = sv.buf, *ends = ev.buf;
    if (!spans_ok("sha256_pair", &sv, &ev, bv.len, PY_SSIZE_T_MAX, NULL)) goto done;
#ifdef SHA_PAIR
    if (sha_pair_ok) {
        unsigned char da[32], db[32];
        int64_t a_start = 0, a_end = av.len;
        ShaFeed fa, fb;
        sha_feed_init(&fa, av.buf, &a_start, &a_end, 1);
        sha_feed_init(&fb, bv.buf, starts, ends, n);
        Py_BEGIN_ALLOW_THREADS
        sha256_two_spans(&fa, &fb, da, db);
        Py_END_ALLOW_THREADS
        out = Py_BuildValue("(y#y#)", (const char *)da, (Py_ssize_t)32, (const char *)db, (Py_ssize_t)32);
        goto done;
    }
#endif
    out = Py_None;
    Py_INCREF(out);
done:
    PyBuffer_Release(&av);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    return out;
}

/* gather(table, ids) -> bytes: table[ids[k]] of each int32 ``ids``, a byte each. */
static PyObject *gather(PyObject *self, PyObject *args) {
    Py_buffer tv, iv;
    if (!PyArg_ParseTuple(args, "y*y*", &tv, &iv)) return NULL;
    const unsigned char *table = tv.buf;
    const int32_t *ids = iv.buf;
    Py_ssize_t m = iv.len / (Py_ssize_t)sizeof(int32_t);
    PyObject *out = NULL;
    for (Py_ssize_t k = 0; k < m; k++)
        if (ids[k] < 0 || ids[k] >= tv.len) {
            PyErr_SetString(PyExc_ValueError, "gather: an id out of the table");
            goto done;
        }
    out = PyBytes_FromStringAndSize(NULL, m);
    if (out) {
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
        for (Py_ssize_t k = 0; k < m; k++) o[k] = table[ids[k]];
    }
done:
    PyBuffer_Release(&tv);
    PyBuffer_Release(&iv);
    return out;
}

/* verbatim_lines(ids, firsts, stops, n, nshapes) -> (lines, flags, shape_counts): the lines of the blocks
 * [firsts[k], stops[k]) (int64 line indexes, each below n; ``ids``: int32 shape id of each line), in
 * order (int64, a line of two blocks twice), a byte a line and one more (1 for a line of a block), and
 * the number of those lines of each shape (int64, ``nshapes`` of them, a line of two blocks counted twice). */
static PyObject *verbatim_lines(PyObject *self, PyObject *args) {
    Py_buffer iv, fv, sv;
    Py_ssize_t n, nshapes;
    if (!PyArg_ParseTuple(args, "y*y*y*nn", &iv, &fv, &sv, &n, &nshapes)) return NULL;
    const int32_t *ids = iv.buf;
    const int64_t *firsts = fv.buf, *stops = sv.buf;
    Py_ssize_t k = fv.len / (Py_ssize_t)sizeof(int64_t), total = 0;
    PyObject *lines = NULL, *flags = NULL, *counts = NULL, *out = NULL;
    if (sv.len != fv.len || n < 0 || n > iv.len / (Py_ssize_t)sizeof(int32_t) || nshapes < 0) {
        PyErr_SetString(PyExc_ValueError, "verbatim_lines: firsts and stops differ in length, or n is out of ids");
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (firsts[j] < 0 || firsts[j] > stops[j] || stops[j] > n) {
            PyErr_SetString(PyExc_ValueError, "verbatim_lines: a block out of the lines");
            goto done;
        }
        total += (Py_ssize_t)(stops[j] - firsts[j]);
    }
    for (Py_ssize_t j = 0; j < k; j++)
        for (int64_t i = firsts[j]; i < stops[j]; i++)
            if (ids[i] < 0 || ids[i] >= nshapes) {
                PyErr_SetString(PyExc_ValueError, "verbatim_lines: a shape id out of range");
                goto done;
            }
    lines = PyBytes_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int64_t));
    flags = PyBytes_FromStringAndSize(NULL, n + 1);
    counts = PyBytes_FromStringAndSize(NULL, nshapes * (Py_ssize_t)sizeof(int64_t));
    if (!lines || !flags || !counts) goto done;
    {
        int64_t *line = (int64_t *)PyBytes_AS_STRING(lines), *count = (int64_t *)PyBytes_AS_STRING(counts);
        char *flag = PyBytes_AS_STRING(flags);
        memset(flag, 0, (size_t)n + 1);
        memset(count, 0, (size_t)nshapes * sizeof(int64_t));
        Py_ssize_t at = 0;
        for (Py_ssize_t j = 0; j < k; j++)
            for (int64_t i = firsts[j]; i < stops[j]; i++) {
                line[at++] = i;
                flag[i] = 1;
                count[ids[i]]++;
            }
    }
    out = PyTuple_Pack(3, lines, flags, counts);
done:
    Py_XDECREF(lines);
    Py_XDECREF(flags);
    Py_XDECREF(counts);
    PyBuffer_Release(&iv);
    PyBuffer_Release(&fv);
    PyBuffer_Release(&sv);
    return out;
}

/* take(values, indexes) -> bytes of native int64: values[indexes[k]] of each (both int64). */
static PyObject *take(PyObject *self, PyObject *args) {
    Py_buffer vv, xv;
    if (!PyArg_ParseTuple(args, "y*y*", &vv, &xv)) return NULL;
    const int64_t *values = vv.buf, *at = xv.buf;
    Py_ssize_t n = vv.len / (Py_ssize_t)sizeof(int64_t), k = xv.len / (Py_ssize_t)sizeof(int64_t);
    PyObject *out = NULL;
    for (Py_ssize_t j = 0; j < k; j++)
        if (at[j] < 0 || at[j] >= n) {
            PyErr_SetString(PyExc_ValueError, "take: an index out of the values");
            goto done;
        }
    out = PyBytes_FromStringAndSize(NULL, k * (Py_ssize_t)sizeof(int64_t));
    if (out) {
        int64_t *o = (int64_t *)PyBytes_AS_STRING(out);
        for (Py_ssize_t j = 0; j < k; j++) o[j] = values[at[j]];
    }
done:
    PyBuffer_Release(&vv);
    PyBuffer_Release(&xv);
    return out;
}

/* next_shapes(ids, firsts, n) -> bytes of native int32: the distinct shape ids (``ids``: int32 of each line)
 * of the lines right after the lines ``firsts`` names (int64), those below n, in order of first appearance. */
static PyObject *next_shapes(PyObject *self, PyObject *args) {
    Py_buffer iv, fv;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*n", &iv, &fv, &n)) return NULL;
    const int32_t *ids = iv.buf;
    const int64_t *firsts = fv.buf;
    Py_ssize_t k = fv.len / (Py_ssize_t)sizeof(int64_t), nids = iv.len / (Py_ssize_t)sizeof(int32_t), found = 0;
    PyObject *out = NULL;
    int32_t *shapes = NULL;
    unsigned char *seen = NULL;
    int32_t top = -1;
    if (n < 0 || n > nids) {
        PyErr_SetString(PyExc_ValueError, "next_shapes: n is out of ids");
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (firsts[j] < -1) {
            PyErr_SetString(PyExc_ValueError, "next_shapes: a line index out of range");
            goto done;
        }
        if (firsts[j] + 1 < n) {
            if (ids[firsts[j] + 1] < 0) {
                PyErr_SetString(PyExc_ValueError, "next_shapes: a negative shape id");
                goto done;
            }
            if (ids[firsts[j] + 1] > top) top = ids[firsts[j] + 1];
        }
    }
    seen = PyMem_Calloc((size_t)top + 2, 1);
    shapes = PyMem_Malloc((size_t)(k ? k : 1) * sizeof(int32_t));
    if (!seen || !shapes) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        if (firsts[j] + 1 < n) {
            int32_t shape = ids[firsts[j] + 1];
            if (!seen[shape]) {
                seen[shape] = 1;
                shapes[found++] = shape;
            }
        }
    out = PyBytes_FromStringAndSize((const char *)shapes, found * (Py_ssize_t)sizeof(int32_t));
done:
    PyMem_Free(seen);
    PyMem_Free(shapes);
    PyBuffer_Release(&iv);
    PyBuffer_Release(&fv);
    return out;
}

/* traced_heads(ids, starts, firsts, n, flags) -> (heads, stops): of the lines ``firsts`` names (int64), those
 * the next line of which (below n) is of a flagged shape (``flags``: a byte a shape id; ``ids``: int32 of
 * each line) and holds more than its newline (``starts``: int64 line starts), in order (int64); and each
 * of ``firsts`` plus one (int64). */
static PyObject *traced_heads(PyObject *self, PyObject *args) {
    Py_buffer iv, sv, fv, gv;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*y*ny*", &iv, &sv, &fv, &n, &gv)) return NULL;
    const int32_t *ids = iv.buf;
    const int64_t *starts = sv.buf, *firsts = fv.buf;
    const unsigned char *flags = gv.buf;
    Py_ssize_t k = fv.len / (Py_ssize_t)sizeof(int64_t), found = 0;
    PyObject *heads = NULL, *stops = NULL, *out = NULL;
    int64_t *head = NULL;
    if (n < 0 || n > iv.len / (Py_ssize_t)sizeof(int32_t) || n >= sv.len / (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "traced_heads: n is out of ids or starts");
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (firsts[j] < -1 || firsts[j] >= INT64_MAX - 1) {
            PyErr_SetString(PyExc_ValueError, "traced_heads: a line index out of range");
            goto done;
        }
        if (firsts[j] + 1 < n && (ids[firsts[j] + 1] < 0 || ids[firsts[j] + 1] >= gv.len)) {
            PyErr_SetString(PyExc_ValueError, "traced_heads: a shape id out of the flags");
            goto done;
        }
    }
    head = PyMem_Malloc((size_t)(k ? k : 1) * sizeof(int64_t));
    stops = PyBytes_FromStringAndSize(NULL, k * (Py_ssize_t)sizeof(int64_t));
    if (!head || !stops) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    {
        int64_t *stop = (int64_t *)PyBytes_AS_STRING(stops);
        for (Py_ssize_t j = 0; j < k; j++) {
            int64_t i = firsts[j] + 1;
            stop[j] = i;
            if (i < n && flags[ids[i]] && starts[i + 1] - starts[i] > 1) head[found++] = firsts[j];
        }
    }
    heads = PyBytes_FromStringAndSize((const char *)head, found * (Py_ssize_t)sizeof(int64_t));
    if (heads) out = PyTuple_Pack(2, heads, stops);
done:
    Py_XDECREF(heads);
    Py_XDECREF(stops);
    PyMem_Free(head);
    PyBuffer_Release(&iv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&fv);
    PyBuffer_Release(&gv);
    return out;
}

/* scatter(target, indexes, values) -> None: target[indexes[k]] = values[k] (a byte each; ``target``: a
 * writable buffer of bytes, ``indexes``: int32, ``values``: bytes as long as ``indexes``, or one int 0-255
 * for every index). */
static PyObject *scatter(PyObject *self, PyObject *args) {
    Py_buffer tv, iv, vv = {0};
    PyObject *values;
    if (!PyArg_ParseTuple(args, "w*y*O", &tv, &iv, &values)) return NULL;
    unsigned char *target = tv.buf;
    const int32_t *at = iv.buf;
    Py_ssize_t k = iv.len / (Py_ssize_t)sizeof(int32_t);
    long one = -1;
    PyObject *out = NULL;
    if (PyLong_Check(values)) {
        one = PyLong_AsLong(values);
        if (one < 0 || one > 255) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "scatter: a value out of 0-255");
            goto done;
        }
    } else {
        if (PyObject_GetBuffer(values, &vv, PyBUF_SIMPLE) < 0) goto done;
        if (vv.len != k) {
            PyErr_SetString(PyExc_ValueError, "scatter: values and indexes differ in length");
            goto done;
        }
    }
    if (tv.itemsize != 1) {
        PyErr_SetString(PyExc_ValueError, "scatter: a target of more than a byte an item");
        goto done;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        if (at[j] < 0 || at[j] >= tv.len) {
            PyErr_SetString(PyExc_ValueError, "scatter: an index out of the target");
            goto done;
        }
    for (Py_ssize_t j = 0; j < k; j++) target[at[j]] = one >= 0 ? (unsigned char)one : ((const unsigned char *)vv.buf)[j];
    out = Py_None;
    Py_INCREF(out);
done:
    if (vv.obj) PyBuffer_Release(&vv);
    PyBuffer_Release(&tv);
    PyBuffer_Release(&iv);
    return out;
}

/* release_memory() -> None: the C library's free memory handed back to the system where it can (glibc's
 * malloc_trim: free pages inside the heap too), so a big temporary freed does not stay resident under the
 * next one; nothing elsewhere. */
static PyObject *release_memory(PyObject *self, PyObject *unused) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    Py_RETURN_NONE;
}

/* join_lines(buf, starts, lines) -> (joined, begins): the lines ``lines`` names (int64 line indexes;
 * ``starts``: int64 line starts, n + 1 of them; a line's bytes without its '\n') joined by '\n', and where
 * each begins in that, then one past its end (int64). */
static PyObject *join_lines(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, lv;
    if (!PyArg_ParseTuple(args, "y*y*y*", &bv, &sv, &lv)) return NULL;
    const char *s = bv.buf;
    const int64_t *starts = sv.buf, *lines = lv.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t) - 1, k = lv.len / (Py_ssize_t)sizeof(int64_t), total = 0;
    PyObject *joined = NULL, *begins = NULL, *out = NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        int64_t i = lines[j];
        if (n < 0 || i < 0 || i >= n || starts[i] < 0 || starts[i] > starts[i + 1] || starts[i + 1] > bv.len) {
            PyErr_SetString(PyExc_ValueError, "join_lines: a line out of range");
            goto done;
        }
        Py_ssize_t e = (Py_ssize_t)starts[i + 1];
        if (e > starts[i] && s[e - 1] == '\n') e--;
        total += e - (Py_ssize_t)starts[i] + 1;
    }
    joined = PyBytes_FromStringAndSize(NULL, total ? total - 1 : 0);
    begins = PyBytes_FromStringAndSize(NULL, (k + 1) * (Py_ssize_t)sizeof(int64_t));
    if (!joined || !begins) goto done;
    {
        char *o = PyBytes_AS_STRING(joined);
        int64_t *begin = (int64_t *)PyBytes_AS_STRING(begins);
        Py_ssize_t at = 0;
        begin[0] = 0;
        for (Py_ssize_t j = 0; j < k; j++) {
            int64_t i = lines[j];
            Py_ssize_t a = (Py_ssize_t)starts[i], e = (Py_ssize_t)starts[i + 1];
            if (e > a && s[e - 1] == '\n') e--;
            memcpy(o + at, s + a, (size_t)(e - a));
            at += e - a;
            if (j + 1 < k) o[at] = '\n';
            at++;
            begin[j + 1] = at;
        }
    }
    out = PyTuple_Pack(2, joined, begins);
done:
    Py_XDECREF(joined);
    Py_XDECREF(begins);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&lv);
    return out;
}

/* How many bytes a and b (n each at least) have in common from their start. */
static Py_ssize_t common_prefix(const unsigned char *a, const unsigned char *b, Py_ssize_t n) {
    Py_ssize_t i = 0;
#if SWAR_DIGITS
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return i + (Py_ssize_t)(__builtin_ctzll(x ^ y) >> 3);  /* the first byte in memory is the lowest */
    }
#endif
    while (i < n && a[i] == b[i]) i++;
    return i;
}

/* mask_into(s, n, o) when o already holds the mask of the previous shape `prev` (prev_n bytes; its
 * spaces in cuts[0:*ncuts]), or none (prev NULL); the spaces of s then in cuts[0:*ncuts] (room for n). */
static Py_ssize_t mask_after(const unsigned char *s, Py_ssize_t n, const unsigned char *prev, Py_ssize_t prev_n,
                             char *o, Cut *cuts, Py_ssize_t *ncuts) {
    Py_ssize_t i = 0, k = 0, c = 0;
    if (prev) {
        Py_ssize_t same = common_prefix(s, prev, n < prev_n ? n : prev_n);
        c = *ncuts;
        while (c && cuts[c - 1].in >= same) c--;
        if (c) {  /* the previous mask up to and with this space: s is the same up to there */
            i = cuts[c - 1].in + 1;
            k = cuts[c - 1].out + 1;
        }
    }
    *ncuts = c;
    return mask_run(s, n, i, o, k, cuts, ncuts);  /* (i is 0 or follows a space) */
}

/* group_shapes(shape_data, shape_ends, modes, counts[, prev_ids, prev_names]) -> (ids, names, totals):
 * the shapes of scan() grouped by their keys, made one at a time (mode 0: the shape; 1: b"\x00" +
 * mask(shape); 2: b"\x01" + words(shape)); a bytes object is made only for each distinct key. With
 * prev_ids/prev_names (an earlier grouping), a shape whose mode is not 2 keeps its earlier key as it
 * is: prev_names[prev_ids[i]], neither rebuilt nor copied. group_classed(shape_data, shape_ends,
 * modes, counts, classes): the same, the shapes' id classes (id_classes) at hand: a shape of mode 1
 * takes the key the first shape of its class made (the mask of two shapes of a class is the same). */
static PyObject *group_core(Py_buffer data_v, Py_buffer ends_v, Py_buffer modes_v, Py_buffer counts_v, Py_buffer prev_v,
                            PyObject *prev_names, Py_buffer classes_v);

static PyObject *group_shapes(PyObject *self, PyObject *args) {
    Py_buffer data_v, ends_v, modes_v, counts_v, prev_v = {0}, classes_v = {0};
    PyObject *prev_names = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*|y*O!", &data_v, &ends_v, &modes_v, &counts_v, &prev_v, &PyList_Type, &prev_names))
        return NULL;
    return group_core(data_v, ends_v, modes_v, counts_v, prev_v, prev_names, classes_v);
}

static PyObject *group_classed(PyObject *self, PyObject *args) {
    Py_buffer data_v, ends_v, modes_v, counts_v, prev_v = {0}, classes_v = {0};
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*", &data_v, &ends_v, &modes_v, &counts_v, &classes_v)) return NULL;
    return group_core(data_v, ends_v, modes_v, counts_v, prev_v, NULL, classes_v);
}

static PyObject *group_core(Py_buffer data_v, Py_buffer ends_v, Py_buffer modes_v, Py_buffer counts_v, Py_buffer prev_v,
                            PyObject *prev_names, Py_buffer classes_v) {
    Py_ssize_t n = ends_v.len / (Py_ssize_t)sizeof(int64_t);
    const int32_t *classes = classes_v.buf;
    int32_t *memo = NULL;  /* per id class: the key id its first shape of mode 1 took, or -1 */
    const int64_t *ends = ends_v.buf, *counts = counts_v.buf;
    const unsigned char *data = data_v.buf, *modes = modes_v.buf;
    const int32_t *prev_ids = prev_v.buf;
    Table table = {0};
    PyObject *ids_obj = NULL, *names = NULL, *totals = NULL, *result = NULL;
    uint64_t *prev_hashes = NULL;  /* the hash of each earlier key, made when first needed */
    char *prev_hashed = NULL;
    char *key = NULL;
    Cut *cuts = NULL;  /* the spaces of the shape whose mask key holds (mask_after) */
    Py_ssize_t ncuts = 0, masked_start = -1, masked_len = 0;  /* that shape, when key holds its mask */
    Py_ssize_t key_cap = 0, n_prev = prev_names ? PyList_GET_SIZE(prev_names) : 0;
    if (ends_v.len != n * (Py_ssize_t)sizeof(int64_t) || modes_v.len != n || counts_v.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "shape_ends, modes and counts must have one entry per shape");
        goto done;
    }
    if ((prev_v.buf != NULL) != (prev_names != NULL) || (prev_v.buf && prev_v.len != n * (Py_ssize_t)sizeof(int32_t))) {
        PyErr_SetString(PyExc_ValueError, "prev_ids (one int32 per shape) and prev_names come together");
        goto done;
    }
    if (classes) {
        Py_ssize_t nclasses = 0;
        if (classes_v.len != n * (Py_ssize_t)sizeof(int32_t)) {
            PyErr_SetString(PyExc_ValueError, "classes must have one int32 per shape");
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (classes[i] < 0) {
                PyErr_SetString(PyExc_ValueError, "a class below 0");
                goto done;
            }
            if (classes[i] >= nclasses) nclasses = (Py_ssize_t)classes[i] + 1;
        }
        memo = PyMem_Malloc((size_t)(nclasses ? nclasses : 1) * sizeof(int32_t));
        if (!memo) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t c = 0; c < nclasses; c++) memo[c] = -1;
    }
    if (prev_names) {
        prev_hashes = PyMem_Malloc((size_t)(n_prev ? n_prev : 1) * sizeof(uint64_t));
        prev_hashed = PyMem_Calloc((size_t)(n_prev ? n_prev : 1), 1);
        if (!prev_hashes || !prev_hashed) { PyErr_NoMemory(); goto done; }
    }
    ids_obj = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    if (!ids_obj) goto done;
    int32_t *ids = (int32_t *)PyBytes_AS_STRING(ids_obj);
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t end = (Py_ssize_t)ends[i] - 1;  /* before the shape's '\n' */
        if (end < start || end >= data_v.len || data[end] != '\n' || modes[i] > 2) {
            PyErr_SetString(PyExc_ValueError, "shape_ends do not fit shape_data, or a mode is not 0, 1 or 2");
            goto done;
        }
        Py_ssize_t len = end - start, id;
        if (prev_names && modes[i] != 2) {  /* the earlier key, as it is */
            int32_t t = prev_ids[i];
            PyObject *name = t >= 0 && t < n_prev ? PyList_GET_ITEM(prev_names, t) : NULL;
            if (!name || !PyBytes_Check(name)) {
                PyErr_SetString(PyExc_ValueError, "prev_ids out of range, or prev_names not bytes");
                goto done;
            }
            if (!prev_hashed[t]) {
                prev_hashes[t] = hash_bytes(PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name));
                prev_hashed[t] = 1;
            }
            id = table_intern(&table, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name), prev_hashes[t], name);
        } else if (memo && modes[i] == 1 && memo[classes[i]] >= 0) {  /* the key of its class, made already */
            id = memo[classes[i]];
        } else {
            const char *k = (const char *)data + start;
            Py_ssize_t k_len = len;
            if (modes[i]) {
                if (len + 1 > key_cap) {
                    PyMem_Free(key);
                    PyMem_Free(cuts);
                    key_cap = len + 1 > 256 ? len + 1 : 256;
                    key = PyMem_Malloc((size_t)key_cap);
                    cuts = PyMem_Malloc((size_t)key_cap * sizeof(Cut));
                    if (!key || !cuts) { PyErr_NoMemory(); goto done; }
                    masked_start = -1;  /* the previous mask is gone */
                }
                key[0] = (char)(modes[i] - 1);  /* \x00: masked, \x01: words */
                if (modes[i] == 1) {
                    k_len = 1 + mask_after(data + start, len, masked_start >= 0 ? data + masked_start : NULL, masked_len,
                                           key + 1, cuts, &ncuts);
                    masked_start = start;
                    masked_len = len;
                } else {
                    k_len = 1 + words_into(data + start, len, key + 1);
                    masked_start = -1;
                }
                k = key;
            }
            id = table_intern(&table, k, k_len, hash_bytes(k, k_len), NULL);
            if (memo && modes[i] == 1 && id >= 0 && id <= INT32_MAX) memo[classes[i]] = (int32_t)id;
        }
        if (id < 0) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
        if (id > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "too many groups"); goto done; }
        table.counts[id] += (Py_ssize_t)counts[i];
        ids[i] = (int32_t)id;
        start = end + 1;
    }
    names = PyList_New(table.n);
    totals = PyBytes_FromStringAndSize(NULL, table.n * (Py_ssize_t)sizeof(int64_t));
    if (!names || !totals) goto done;
    int64_t *total_items = (int64_t *)PyBytes_AS_STRING(totals);
    for (Py_ssize_t e = 0; e < table.n; e++) {
        total_items[e] = table.counts[e];
        PyList_SET_ITEM(names, e, table.keys[e]);  /* the list takes the table's reference */
        table.keys[e] = NULL;
    }
    result = PyTuple_Pack(3, ids_obj, names, totals);
done:
    table_free(&table);
    PyMem_Free(key);
    PyMem_Free(cuts);
    PyMem_Free(prev_hashes);
    PyMem_Free(prev_hashed);
    PyMem_Free(memo);
    Py_XDECREF(ids_obj);
    Py_XDECREF(names);
    Py_XDECREF(totals);
    PyBuffer_Release(&data_v);
    PyBuffer_Release(&ends_v);
    PyBuffer_Release(&modes_v);
    PyBuffer_Release(&counts_v);
    if (prev_v.obj) PyBuffer_Release(&prev_v);
    if (classes_v.obj) PyBuffer_Release(&classes_v);
    return result;
}

/* A shape's id class key into o (room for 2 n bytes); returns its length. An id run: a run of
 * [0-9a-f] holding a decimal digit, two bytes or more, that no letter or digit precedes ('_' may) and
 * no word character follows (a hex id: a uuid's group, req_7f3a2b's 7f3a2b). Each becomes \x01 and a
 * byte of what of it matters: whether its first byte is a digit where a `code`/`status` and [ =:]*
 * and an optional '-' come right before it (vocab's exit-code alternative), whether its last byte is
 * a digit where a ':' follows (its logcat alternative); a \x01 of the shape is \x01\x00. Two shapes
 * of one key differ only in the inside of their id runs: the signal vocabulary's matches
 * (vocab.signal_shapes: no alternative reaches into a run but by those two bytes) and the mask
 * (mask_into: a run of hex digits holding a digit becomes '#', alone or in a uuid) are the same.
 * id_key_run writes it from i (0, or right after a byte that is no letter or digit: what came before
 * does not depend on s[i:]) into o + k; id_key_words is its form eight bytes a step. */
enum { I_ALNUM = 1, I_LHEX = 2, I_DIGIT = 4 };
static unsigned char id_class[256];

static void id_class_init(void) {
    for (int c = 0; c < 256; c++) {
        unsigned char f = 0;
        if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) f |= I_ALNUM;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) f |= I_LHEX;
        if (c >= '0' && c <= '9') f |= I_DIGIT;
        id_class[c] = f;
    }
}

#if SWAR_DIGITS
/* 0x80 in each byte of w within [lo, hi] (ASCII bounds; bytes past ASCII never), 0 elsewhere. */
static inline uint64_t range_bytes(uint64_t w, unsigned lo, unsigned hi) {
    const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
    uint64_t x = w & ~high;
    return (x + ones * (0x80 - lo)) & ~(x + ones * (0x7F - hi)) & ~w & high;
}
#endif

static int id_code_before(const unsigned char *s, Py_ssize_t b) {  /* `code`/`status` [ =:]* -? end at b */
    if (b < 5 || (s[b - 1] != '-' && s[b - 1] != ' ' && s[b - 1] != '=' && s[b - 1] != ':')) return 0;
    if (s[b - 1] == '-') b--;
    while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '=' || s[b - 1] == ':')) b--;
    return (b >= 4 && (s[b - 4] | 0x20) == 'c' && (s[b - 3] | 0x20) == 'o' && (s[b - 2] | 0x20) == 'd'
            && (s[b - 1] | 0x20) == 'e')
        || (b >= 6 && (s[b - 6] | 0x20) == 's' && (s[b - 5] | 0x20) == 't' && (s[b - 4] | 0x20) == 'a'
            && (s[b - 3] | 0x20) == 't' && (s[b - 2] | 0x20) == 'u' && (s[b - 1] | 0x20) == 's');
}

static Py_ssize_t id_key_run(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, char *o, Py_ssize_t k) {
    while (i < n) {
        unsigned char c = s[i];
        unsigned f = id_class[c];
        if (!(f & I_ALNUM)) {  /* no letter or digit: as it is (\x01 escaped) */
            o[k++] = (char)c;
            if (c == 1) o[k++] = 0;
            i++;
            continue;
        }
        Py_ssize_t j = i;
        unsigned all = I_LHEX, any = 0;
#if SWAR_DIGITS
        const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
        uint64_t not_hex = 0, digits = 0;  /* 0x80 in each byte of the run so far that is no [0-9a-f], a digit */
        for (; j + 8 <= n; j += 8) {
            uint64_t w;
            memcpy(&w, s + j, 8);
            uint64_t dig = range_bytes(w, '0', '9'), alnum = dig | range_bytes(w | ones * 0x20, 'a', 'z');
            uint64_t lhex = dig | range_bytes(w, 'a', 'f'), stop = ~alnum & high;
            if (stop) {  /* the run ends in this word: its bytes before the first other one */
                unsigned bits = (unsigned)__builtin_ctzll(stop) & ~7u;
                uint64_t in = bits ? (~0ULL >> (64 - bits)) : 0;
                not_hex |= ~lhex & high & in;
                digits |= dig & in;
                j += bits >> 3;
                goto run_end;
            }
            not_hex |= ~lhex & high;
            digits |= dig;
        }
#endif
        for (; j < n && ((f = id_class[s[j]]) & I_ALNUM); j++) {
            all &= f;
            any |= f;
        }
#if SWAR_DIGITS
    run_end:
        if (not_hex) all = 0;
        if (digits) any |= I_DIGIT;
#endif
        if ((all & I_LHEX) && (any & I_DIGIT) && j - i >= 2 && (j == n || s[j] != '_')) {
            unsigned char what = 0x40;
            if (id_code_before(s, i)) what |= (id_class[s[i]] & I_DIGIT) ? 1 : 2;
            if (j < n && s[j] == ':') what |= (id_class[s[j - 1]] & I_DIGIT) ? 4 : 8;
            o[k++] = 1;
            o[k++] = (char)what;
        } else {
            memcpy(o + k, s + i, (size_t)(j - i));
            k += j - i;
        }
        i = j;
    }
    return k;
}

#if SWAR_DIGITS
/* id_key_run(s, n, i, o, k) for a shape without \x01, eight bytes a step: the letter and
 * digit runs found by masks (a run that goes on past a word is carried over), each word stored where
 * its bytes go (o has room for 2 n + 16 bytes: a word may be stored past the key's end). Each id run
 * found is appended to runs as its start, its end and where the key is after it (room for n / 2 + 1). */
static Py_ssize_t id_key_words(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, char *o, Py_ssize_t k,
                               int64_t (*runs)[3], Py_ssize_t *nruns) {
    const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
    Py_ssize_t copied = i, tok = -1;  /* s[copied:] is not in o yet; the letter and digit run going on */
    uint64_t bad = 0, dig = 0;  /* of that run so far: a byte that is no [0-9a-f]; a digit */
    for (Py_ssize_t p = i; p <= n; p += 8) {  /* (a word of zeros at n ends a run that reaches it) */
        uint64_t w = 0;  /* past n: zero bytes, none a letter or digit */
        if (n - p >= 8) memcpy(&w, s + p, 8);
        else for (Py_ssize_t b = 0; b < n - p; b++) w |= (uint64_t)s[p + b] << (8 * b);
        memcpy(o + k + (p - copied), &w, 8);  /* the word where its bytes go unless an id run is cut */
        uint64_t d = range_bytes(w, '0', '9');
        uint64_t a = d | range_bytes(w | ones * 0x20, 'a', 'z');
        uint64_t h = d | range_bytes(w, 'a', 'f');
        uint64_t from = high;  /* the bytes of w from the place reached on */
        for (;;) {
            if (tok < 0) {  /* the next run's start */
                uint64_t m = a & from;
                if (!m) break;
                unsigned bit = (unsigned)__builtin_ctzll(m);
                tok = p + (bit >> 3);
                bad = dig = 0;
                from = high & (~0ULL << (bit & ~7u));
            }
            uint64_t m = ~a & from;  /* where the run ends */
            if (!m) {  /* on past this word */
                bad |= ~h & from;
                dig |= d & from;
                break;
            }
            unsigned bit = (unsigned)__builtin_ctzll(m);
            uint64_t in = from & ((1ULL << bit) - 1);
            bad |= ~h & in;
            dig |= d & in;
            Py_ssize_t e = p + (bit >> 3);  /* (at most n: the bytes past it are zero) */
            if (!bad && dig && e - tok >= 2 && (e == n || s[e] != '_')) {
                unsigned char what = 0x40;
                if (id_code_before(s, tok)) what |= (id_class[s[tok]] & I_DIGIT) ? 1 : 2;
                if (e < n && s[e] == ':') what |= (id_class[s[e - 1]] & I_DIGIT) ? 4 : 8;
                k += tok - copied;  /* (the bytes before the run are in place) */
                o[k++] = 1;
                o[k++] = (char)what;
                copied = e;
                if (e < p + 8) {  /* the rest of the word where it goes now */
                    uint64_t rest = w >> (8 * (e - p));
                    memcpy(o + k, &rest, 8);
                }
                runs[*nruns][0] = tok;
                runs[*nruns][1] = e;
                runs[*nruns][2] = k;
                ++*nruns;
            }
            tok = -1;
            from = high & (~0ULL << (bit & ~7u));
        }
    }
    return k + (n - copied);  /* (the bytes past it in o are the last word's zeros) */
}
#endif

/* id_classes(shape_data, shape_ends, check_at) -> (classes, rep_data, rep_ends) or None: the shapes of
 * scan() by their id class (id_key_run), numbered in order of first appearance (int32 a shape), and
 * the first shape of each class, each followed by a newline, with where each ends (int64). None when,
 * after check_at shapes, more than half of them began a class (ids do not make the shapes many). */
static PyObject *id_classes(PyObject *self, PyObject *args) {
    Py_buffer data_v, ends_v;
    Py_ssize_t check_at;
    if (!PyArg_ParseTuple(args, "y*y*n", &data_v, &ends_v, &check_at)) return NULL;
    Py_ssize_t n = ends_v.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *ends = ends_v.buf;
    const unsigned char *data = data_v.buf;
    Table table = {0};
    PyObject *classes_obj = NULL, *rep_data = NULL, *rep_ends = NULL, *result = NULL;
    Py_ssize_t *reps = NULL, reps_cap = 0;
    char *key = NULL;
    int64_t (*runs)[3] = NULL;  /* the id runs of the key's shape: start, end, the key's length after it */
    Py_ssize_t key_cap = 0, nruns = 0, keyed_start = -1, keyed_len = 0;  /* the shape whose key is in key */
    if (ends_v.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "shape_ends must be int64");
        goto done;
    }
    if (!id_class['0']) id_class_init();
    classes_obj = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    if (!classes_obj) goto done;
    int32_t *classes = (int32_t *)PyBytes_AS_STRING(classes_obj);
    Py_ssize_t start = 0, rep_bytes = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t end = (Py_ssize_t)ends[i] - 1;  /* before the shape's '\n' */
        if (end < start || end >= data_v.len || data[end] != '\n') {
            PyErr_SetString(PyExc_ValueError, "shape_ends do not fit shape_data");
            goto done;
        }
        Py_ssize_t len = end - start;
        if (2 * len + 1 > key_cap) {
            PyMem_Free(key);
            PyMem_Free(runs);
            key_cap = 2 * len + 1 > 512 ? 2 * len + 1 : 512;
            key = PyMem_Malloc((size_t)key_cap + 16);  /* (id_key_words stores whole words) */
            runs = PyMem_Malloc((size_t)(key_cap / 2 + 1) * sizeof(*runs));
            if (!key || !runs) { PyErr_NoMemory(); goto done; }
            keyed_start = -1;  /* the previous key is gone */
        }
        /* the key of what this shape shares with the one before up to a byte that is no letter or
         * digit and lies before where they differ is that one's (each byte's key depends on the
         * bytes up to the next such byte): the rest is made */
        const unsigned char *shape = data + start;
        Py_ssize_t k_len;
#if SWAR_DIGITS
        if (!memchr(shape, 1, (size_t)len)) {
            Py_ssize_t from = 0, k_from = 0;
            if (keyed_start >= 0) {
                Py_ssize_t b = common_prefix(shape, data + keyed_start, len < keyed_len ? len : keyed_len);
                while (b > 0 && (id_class[shape[b - 1]] & I_ALNUM)) b--;  /* back to a byte no letter or digit */
                while (nruns && runs[nruns - 1][1] >= b) nruns--;  /* the id runs before it (each ends before it) */
                from = b;
                k_from = nruns ? runs[nruns - 1][2] + (b - runs[nruns - 1][1]) : b;
            } else {
                nruns = 0;
            }
            k_len = id_key_words(shape, len, from, key, k_from, runs, &nruns);
            keyed_start = start;
            keyed_len = len;
        } else
#endif
        {
            k_len = id_key_run(shape, len, 0, key, 0);
            keyed_start = -1;  /* (its runs are not kept) */
        }
        Py_ssize_t before = table.n;
        Py_ssize_t id = table_intern(&table, key, k_len, hash_bytes(key, k_len), NULL);
        if (id < 0) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
        if (id > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "too many classes"); goto done; }
        if (table.n > before) {  /* a new class: this shape stands for it */
            if (table.n > reps_cap) {
                Py_ssize_t cap = reps_cap ? reps_cap * 2 : 1024;
                Py_ssize_t *grown = PyMem_Realloc(reps, (size_t)cap * sizeof(Py_ssize_t));
                if (!grown) { PyErr_NoMemory(); goto done; }
                reps = grown;
                reps_cap = cap;
            }
            reps[id] = i;
            rep_bytes += len + 1;
        }
        classes[i] = (int32_t)id;
        start = end + 1;
        if (i + 1 == check_at && table.n * 2 > check_at) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
    }
    rep_data = PyBytes_FromStringAndSize(NULL, rep_bytes);
    rep_ends = PyBytes_FromStringAndSize(NULL, table.n * (Py_ssize_t)sizeof(int64_t));
    if (!rep_data || !rep_ends) goto done;
    char *out = PyBytes_AS_STRING(rep_data);
    int64_t *out_ends = (int64_t *)PyBytes_AS_STRING(rep_ends);
    Py_ssize_t at = 0;
    for (Py_ssize_t c = 0; c < table.n; c++) {
        Py_ssize_t r = reps[c], a = r ? (Py_ssize_t)ends[r - 1] : 0, b = (Py_ssize_t)ends[r];
        memcpy(out + at, data + a, (size_t)(b - a));  /* the shape and its newline */
        at += b - a;
        out_ends[c] = at;
    }
    result = PyTuple_Pack(3, classes_obj, rep_data, rep_ends);
done:
    table_free(&table);
    PyMem_Free(reps);
    PyMem_Free(key);
    PyMem_Free(runs);
    Py_XDECREF(classes_obj);
    Py_XDECREF(rep_data);
    Py_XDECREF(rep_ends);
    PyBuffer_Release(&data_v);
    PyBuffer_Release(&ends_v);
    return result;
}

/* mark_rare(counts, template_of, totals, fold_min, modes, mode) -> how many shapes were marked: every
 * shape with lines (counts, int64) whose template (template_of, int32, or None: the shape itself)
 * has fewer than fold_min lines (totals, int64) gets modes[shape] = mode. */
static PyObject *mark_rare(PyObject *self, PyObject *args) {
    Py_buffer counts_v, totals_v, modes_v, of_v = {0};
    PyObject *of_obj;
    long long fold_min;
    int mode;
    if (!PyArg_ParseTuple(args, "y*Oy*Lw*i", &counts_v, &of_obj, &totals_v, &fold_min, &modes_v, &mode)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = counts_v.len / (Py_ssize_t)sizeof(int64_t), n_totals = totals_v.len / (Py_ssize_t)sizeof(int64_t);
    if (of_obj != Py_None && PyObject_GetBuffer(of_obj, &of_v, PyBUF_SIMPLE) < 0) goto done;
    const int64_t *counts = counts_v.buf, *totals = totals_v.buf;
    const int32_t *of = of_v.buf;
    unsigned char *modes = modes_v.buf;
    if (modes_v.len != n || (of && of_v.len != n * (Py_ssize_t)sizeof(int32_t)) || mode < 0 || mode > 255) {
        PyErr_SetString(PyExc_ValueError, "modes and template_of must have one entry per shape");
        goto done;
    }
    Py_ssize_t marked = 0;
    for (Py_ssize_t s = 0; s < n; s++) {
        if (!counts[s]) continue;
        Py_ssize_t t = of ? of[s] : s;
        if (t < 0 || t >= n_totals) {
            PyErr_SetString(PyExc_ValueError, "a template id out of range");
            goto done;
        }
        if (totals[t] < fold_min) {
            modes[s] = (unsigned char)mode;
            marked++;
        }
    }
    result = PyLong_FromSsize_t(marked);
done:
    PyBuffer_Release(&counts_v);
    PyBuffer_Release(&totals_v);
    PyBuffer_Release(&modes_v);
    if (of_v.obj) PyBuffer_Release(&of_v);
    return result;
}

/* Store v at index i of a native int32 (es == 4) or int64 (es == 8) array. */
static inline void put_offset(char *array, int es, Py_ssize_t i, Py_ssize_t v) {
    if (es == 4) ((int32_t *)array)[i] = (int32_t)v;
    else ((int64_t *)array)[i] = (int64_t)v;
}

static inline Py_ssize_t get_offset(const char *array, int es, Py_ssize_t i) {
    return es == 4 ? (Py_ssize_t)((const int32_t *)array)[i] : (Py_ssize_t)((const int64_t *)array)[i];
}

static PyObject *pair_brackets(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, stop;
    int wide = 1;
    if (!PyArg_ParseTuple(args, "y*nn|p", &view, &start, &stop, &wide)) return NULL;
    const unsigned char *s = view.buf;
    const int es = wide ? 8 : 4;
    PyObject *result = NULL, *opens = NULL, *closes = NULL;
    Py_ssize_t *stack = NULL;
    Py_ssize_t n = 0, cap = 256, depth = 0, stack_cap = 64, end = -1;
    if (stop > view.len) stop = view.len;
    if (start < 0 || start >= stop || (s[start] != '{' && s[start] != '[')) {
        PyErr_SetString(PyExc_ValueError, "start is not an opening bracket before stop");
        goto done;
    }
    if (!wide && stop > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "offsets past 2 GiB need wide=True");
        goto done;
    }
    /* the results are built in place in bytes objects (resized as they grow): no copy at the end */
    opens = PyBytes_FromStringAndSize(NULL, cap * es);
    closes = PyBytes_FromStringAndSize(NULL, cap * es);
    stack = PyMem_Malloc((size_t)stack_cap * sizeof(Py_ssize_t));
    if (!opens || !closes || !stack) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    put_offset(PyBytes_AS_STRING(opens), es, 0, start);
    put_offset(PyBytes_AS_STRING(closes), es, 0, -1);
    n = 1;
    stack[depth++] = 0;
    for (Py_ssize_t p = start + 1; p < stop; p++) {
        unsigned char c = s[p];
        if (c == '"') {
            Py_ssize_t q = p + 1;
            for (;;) {
                while (q < stop && s[q] != '"' && s[q] != '\\') q++;
                if (q >= stop) goto finish;            /* unterminated string */
                if (s[q] == '"') break;
                if (q + 1 >= stop) goto finish;        /* a backslash with nothing after it */
                q += 2;
            }
            p = q;
        } else if (c == '{' || c == '[') {
            if (n == cap) {
                cap *= 2;
                if (_PyBytes_Resize(&opens, cap * es) < 0 || _PyBytes_Resize(&closes, cap * es) < 0) goto done;
            }
            if (depth == stack_cap) {
                stack_cap *= 2;
                Py_ssize_t *grown = PyMem_Realloc(stack, (size_t)stack_cap * sizeof(Py_ssize_t));
                if (!grown) { PyErr_NoMemory(); goto done; }
                stack = grown;
            }
            put_offset(PyBytes_AS_STRING(opens), es, n, p);
            put_offset(PyBytes_AS_STRING(closes), es, n, -1);
            stack[depth++] = n++;
        } else if (c == '}' || c == ']') {
            Py_ssize_t i = stack[--depth];
            if (s[get_offset(PyBytes_AS_STRING(opens), es, i)] + 2 != c) goto finish;  /* '{'+2 == '}', '['+2 == ']' */
            put_offset(PyBytes_AS_STRING(closes), es, i, p + 1);
            if (!depth) {
                end = p + 1;
                goto finish;
            }
        }
    }
finish:
    if (_PyBytes_Resize(&opens, n * es) < 0 || _PyBytes_Resize(&closes, n * es) < 0) goto done;
    result = Py_BuildValue("(OOn)", opens, closes, end);
done:
    Py_XDECREF(opens);
    Py_XDECREF(closes);
    PyMem_Free(stack);
    PyBuffer_Release(&view);
    return result;
}

/* -- diff: line starts and each line's role ------------------------------------------------------ */

enum { D_OTHER, D_META, D_CTX, D_CHG, D_NONL, D_BIN };
#define D_COUNT_MAX ((int64_t)1 << 62)  /* a hunk count saturates here: more lines than any input has */

static int starts_with(const unsigned char *s, const unsigned char *be, const char *lit) {
    size_t n = strlen(lit);
    return (size_t)(be - s) >= n && memcmp(s, lit, n) == 0;
}

/* Digits from *p (at least one); the value saturated at D_COUNT_MAX; *p moves past them. */
static int parse_count(const unsigned char **p, const unsigned char *be, int64_t *value) {
    const unsigned char *q = *p;
    int64_t v = 0;
    while (q < be && is_digit(*q)) {
        v = v > D_COUNT_MAX / 10 ? D_COUNT_MAX : v * 10 + (*q - '0');
        if (v > D_COUNT_MAX) v = D_COUNT_MAX;
        q++;
    }
    if (q == *p) return 0;
    *p = q;
    *value = v;
    return 1;
}

static int is_lower_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
static int is_octal(unsigned char c) { return c >= '0' && c <= '7'; }

/* At least 4 lowercase hex digits from *p; *p moves past all of them. */
static int hex_run(const unsigned char **p, const unsigned char *be) {
    const unsigned char *q = *p;
    while (q < be && is_lower_hex(*q)) q++;
    if (q - *p < 4) return 0;
    *p = q;
    return 1;
}

/* META_RE of diff.py: git metadata with no decision value, the whole line. */
static int diff_meta(const unsigned char *s, const unsigned char *be) {
    const unsigned char *p;
    if (starts_with(s, be, "index ")) {
        p = s + 6;
        if (!hex_run(&p, be)) return 0;
        while (p < be && *p == ',') {
            p++;
            if (!hex_run(&p, be)) return 0;
        }
        if (be - p < 2 || p[0] != '.' || p[1] != '.') return 0;
        p += 2;
        if (!hex_run(&p, be)) return 0;
        if (p == be) return 1;
        if (be - p != 7 || *p != ' ') return 0;
        for (p++; p < be; p++)
            if (!is_octal(*p)) return 0;
        return 1;
    }
    if (starts_with(s, be, "old mode ")) {
        if (be - s != 15) return 0;
        for (p = s + 9; p < be; p++)
            if (!is_octal(*p)) return 0;
        return 1;
    }
    if (starts_with(s, be, "similarity index ")) p = s + 17;
    else if (starts_with(s, be, "dissimilarity index ")) p = s + 20;
    else return 0;
    const unsigned char *digits = p;
    while (p < be && is_digit(*p)) p++;
    return p - digits >= 1 && p - digits <= 3 && be - p == 1 && *p == '%';
}

/* BINARY_DATA_RE of diff.py: a letter, then base85 characters to the end of the line. */
static int diff_binary_data(const unsigned char *s, const unsigned char *be) {
    static const char extra[] = "!#$%&()*+;<=>?@^_`{|}~-";
    if (s == be || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) return 0;
    for (const unsigned char *p = s + 1; p < be; p++)
        if (!is_digit(*p) && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) && !memchr(extra, *p, sizeof extra - 1))
            return 0;
    return 1;
}

/* BINARY_HUNK_RE of diff.py: "literal N" or "delta N", the whole line. */
static int diff_binary_hunk(const unsigned char *s, const unsigned char *be) {
    const unsigned char *p;
    int64_t ignored;
    if (starts_with(s, be, "literal ")) p = s + 8;
    else if (starts_with(s, be, "delta ")) p = s + 6;
    else return 0;
    return parse_count(&p, be, &ignored) && p == be;
}

/* HUNK_RE of diff.py: "@@ -a,b +c,d @@" (one '@' more and one "-a,b " more per parent of a combined
 * diff). Returns 1 on a match; *fits tells whether the number of ranges fits the number of '@', and
 * then old[0..width) and *new hold the line counts (a missing count is 1). old has room for
 * old_cap counts; more ranges than that: *fits = 0 and *width = the number needed. */
static int diff_hunk(const unsigned char *s, const unsigned char *be, int64_t *old, Py_ssize_t old_cap,
                     Py_ssize_t *width, int64_t *new_count, int *fits) {
    const unsigned char *p = s;
    while (p < be && *p == '@') p++;
    Py_ssize_t ats = p - s, ranges = 0;
    if (ats < 2 || p == be || *p != ' ') return 0;
    p++;
    while (p < be && *p == '-') {
        int64_t start, count = 1;
        p++;
        if (!parse_count(&p, be, &start)) return 0;
        if (p < be && *p == ',') {
            p++;
            if (!parse_count(&p, be, &count)) return 0;
        }
        if (p == be || *p != ' ') return 0;
        p++;
        if (ranges < old_cap) old[ranges] = count;
        ranges++;
    }
    if (!ranges || p == be || *p != '+') return 0;
    p++;
    int64_t start, count = 1;
    if (!parse_count(&p, be, &start)) return 0;
    if (p < be && *p == ',') {
        p++;
        if (!parse_count(&p, be, &count)) return 0;
    }
    if (p == be || *p != ' ') return 0;
    p++;
    if (be - p < ats) return 0;
    for (Py_ssize_t i = 0; i < ats; i++)
        if (p[i] != '@') return 0;
    p += ats;
    if (p < be && *p != ' ' && *p != '\t') return 0;
    *fits = ranges == ats - 1 && ranges <= old_cap;
    *width = ranges;
    *new_count = count;
    return 1;
}

static PyObject *diff_lines(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len;
    PyObject *result = NULL, *starts = NULL, *kinds = NULL;
    int64_t *old = NULL;
    Py_ssize_t n = 0, old_cap = 8;
    for (const unsigned char *p = raw; p < end; n++) {  /* count the lines first: exact sizes */
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    starts = PyBytes_FromStringAndSize(NULL, (n + 1) * 8);
    kinds = PyByteArray_FromStringAndSize(NULL, n);
    old = PyMem_RawMalloc(old_cap * sizeof *old);  /* Raw: reallocated without the GIL */
    if (!starts || !kinds || !old) {
        if (!old) PyErr_NoMemory();
        goto done;
    }
    int64_t *st = (int64_t *)PyBytes_AS_STRING(starts);
    unsigned char *kd = (unsigned char *)PyByteArray_AS_STRING(kinds);
    int in_header = 0, in_binary = 0;
    Py_ssize_t width = 0;  /* prefix columns of the current hunk; 0 outside a hunk */
    int64_t new_left = 0;
    const unsigned char *s = raw;
    int failed = 0;  /* out of memory, found without the GIL */
    Py_BEGIN_ALLOW_THREADS  /* the loop touches no Python object */
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        const unsigned char *e = nl ? nl + 1 : end, *be = nl ? nl : end;
        if (be > s && be[-1] == '\r') be--;
        st[i] = s - raw;
        unsigned char kind = D_OTHER;
        const unsigned char *line = s;
        s = e;
        if (width) {
            int64_t most = 0;
            for (Py_ssize_t j = 0; j < width; j++)
                if (old[j] > most) most = old[j];
            if (new_left > 0 || most > 0) {
                if (be > line && *line == '\\') {
                    kd[i] = D_NONL;
                    continue;
                }
                Py_ssize_t len = be - line < width ? be - line : width, j;
                int spaces = 1, fits = 1, minus = 0;
                for (j = 0; j < len; j++) {
                    unsigned char c = line[j];
                    if (c != ' ') spaces = 0;
                    if (c != ' ' && c != '+' && c != '-') fits = 0;
                    if (c == '-') minus = 1;
                }
                if (len < width && !spaces) fits = 0;  /* a short prefix counts only when blank (stripped spaces) */
                if (fits) {
                    kd[i] = spaces ? D_CTX : D_CHG;
                    for (j = 0; j < width; j++)
                        if (j >= len || line[j] != '+') old[j]--;  /* in this parent */
                    if (!minus) new_left--;  /* in the result */
                    continue;
                }
                width = 0;  /* the hunk does not match its header: leave the rest alone */
            } else if (be > line && *line == '\\') {
                kd[i] = D_NONL;
                continue;
            } else {
                width = 0;
            }
        }
        int settled = 0;  /* a file start or a hunk header: not a header or binary line */
        if (starts_with(line, be, "diff --git ") || starts_with(line, be, "diff --cc ") ||
            starts_with(line, be, "diff --combined ")) {
            in_header = 1;
            in_binary = 0;
            settled = 1;
        } else if (be - line >= 2 && line[0] == '@' && line[1] == '@') {
            Py_ssize_t need = 0;
            int64_t new_count = 0;
            int fits = 0, hunk = diff_hunk(line, be, old, old_cap, &need, &new_count, &fits);
            if (hunk && !fits && need > old_cap) {  /* a combined diff of many parents: room, then again */
                int64_t *more = PyMem_RawRealloc(old, need * sizeof *old);
                if (!more) {
                    failed = 1;
                    break;
                }
                old = more;
                old_cap = need;
                hunk = diff_hunk(line, be, old, old_cap, &need, &new_count, &fits);
            }
            if (hunk) {
                if (fits) {
                    width = need;
                    new_left = new_count;
                }
                in_header = in_binary = 0;
                settled = 1;
            }
        }
        if (!settled && in_binary) {
            if (diff_binary_hunk(line, be)) {
                kd[i] = D_OTHER;
                continue;
            }
            if (be == line || diff_binary_data(line, be)) {
                kd[i] = D_BIN;
                continue;
            }
            in_binary = 0;
        }
        if (!settled && in_header) {
            if (be - line == 16 && memcmp(line, "GIT binary patch", 16) == 0) in_binary = 1;
            else if (diff_meta(line, be)) kind = D_META;
        }
        kd[i] = kind;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    st[n] = view.len;
    result = PyTuple_Pack(2, starts, kinds);
done:
    Py_XDECREF(starts);
    Py_XDECREF(kinds);
    PyMem_RawFree(old);
    PyBuffer_Release(&view);
    return result;
}

/* ---- search output (grep -rn, rg -n) ------------------------------------------------------------ */

/* The id of the key (data, len) in t, or -1 when it is not there. */
static Py_ssize_t table_find(const Table *t, const char *data, Py_ssize_t len, uint64_t hash) {
    if (!t->nslots) return -1;
    Py_ssize_t s = (Py_ssize_t)(hash & (uint64_t)(t->nslots - 1));
    for (;;) {
        Py_ssize_t e = t->slots[s];
        if (!e) return -1;
        e -= 1;
        if (t->hashes[e] == hash && PyBytes_GET_SIZE(t->keys[e]) == len
            && memcmp(PyBytes_AS_STRING(t->keys[e]), data, (size_t)len) == 0)
            return e;
        s = (s + 1) & (t->nslots - 1);
    }
}

enum { S_MATCH = 0, S_CONTEXT = 1, S_SEP = 2, S_BLANK = 5, S_OTHER = 6, S_LEFT = 7 };  /* as numbered in search.py; S_LEFT: a line left to the caller, OTHER when returned */

static int is_path_first(unsigned char c) {  /* (?:\./|/|[\w.@~+-]) of search.py's _PATH: its first byte */
    return is_word(c) || c == '.' || c == '@' || c == '~' || c == '+' || c == '-' || c == '/';
}

static int all_space(const unsigned char *s, const unsigned char *be) {  /* empty, or bytes.isspace() */
    for (; s < be; s++)
        if (!is_space(*s)) return 0;
    return 1;
}

static int holds(const unsigned char *s, const unsigned char *be, const char *lit, size_t n) {
    while ((size_t)(be - s) >= n) {
        const unsigned char *at = memchr(s, lit[0], (size_t)(be - s) - n + 1);
        if (!at) return 0;
        if (memcmp(at, lit, n) == 0) return 1;
        s = at + 1;
    }
    return 0;
}

/* The length of the path MATCH_N_RE (numbered) or MATCH_RE of search.py matches at s, or 0: a first
 * byte of the path class, then every byte up to the first ':' or NUL, which must be ':' (then, when
 * numbered, digits and ':'). */
static Py_ssize_t match_path(const unsigned char *s, const unsigned char *be, int numbered) {
    if (s == be || !is_path_first(s[0])) return 0;
    const unsigned char *p = s + 1;
    while (p < be && *p != ':' && *p != 0) p++;
    if (p == be || *p != ':') return 0;
    if (numbered) {
        const unsigned char *d = p + 1;
        while (d < be && is_digit(*d)) d++;
        if (d == p + 1 || d == be || *d != ':') return 0;
    }
    return p - s;
}

/* Where the first "-\d+-" (CONTEXT_AT_RE) starts in [s, be), or -1. */
static Py_ssize_t context_at(const unsigned char *s, const unsigned char *be) {
    const unsigned char *p = s;
    while (p < be) {
        p = memchr(p, '-', (size_t)(be - p));
        if (!p) return -1;
        const unsigned char *d = p + 1;
        while (d < be && is_digit(*d)) d++;
        if (d > p + 1 && d < be && *d == '-') return p - s;
        p++;
    }
    return -1;
}

static int grow_goods(char **goods, Py_ssize_t *cap, Py_ssize_t need) {
    if (need <= *cap) return 0;
    Py_ssize_t more_cap = *cap ? *cap * 2 : 256;
    char *more = PyMem_Realloc(*goods, (size_t)more_cap);
    if (!more) {
        PyErr_NoMemory();
        return -1;
    }
    *goods = more;
    *cap = more_cap;
    return 0;
}

static PyObject *search_lines(PyObject *self, PyObject *args) {
    Py_buffer view;
    int numbered;
    PyObject *good;
    if (!PyArg_ParseTuple(args, "y*pO", &view, &numbered, &good)) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len;
    PyObject *result = NULL, *starts = NULL, *tails = NULL, *kinds = NULL, *pids = NULL, *paths = NULL, *todo = NULL;
    Table t = {0};
    char *goods = NULL;  /* per path id: 1 when good(path) is true */
    Py_ssize_t goods_cap = 0, n = 0, ntodo = 0;
    int64_t *todo_v = NULL;
    for (const unsigned char *p = raw; p < end; n++) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    starts = PyBytes_FromStringAndSize(NULL, (n + 1) * 8);
    tails = PyBytes_FromStringAndSize(NULL, n);
    kinds = PyByteArray_FromStringAndSize(NULL, n);
    pids = PyByteArray_FromStringAndSize(NULL, n * 4);
    todo_v = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!starts || !tails || !kinds || !pids || !todo_v) {
        if (!todo_v) PyErr_NoMemory();
        goto done;
    }
    int64_t *st = (int64_t *)PyBytes_AS_STRING(starts);
    unsigned char *tl = (unsigned char *)PyBytes_AS_STRING(tails);
    unsigned char *kd = (unsigned char *)PyByteArray_AS_STRING(kinds);
    int32_t *pd = (int32_t *)PyByteArray_AS_STRING(pids);
    const unsigned char *s = raw;
    for (Py_ssize_t i = 0; i < n; i++) {  /* pass 1: the lines, their plain kinds and the matching lines */
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        const unsigned char *e = nl ? nl + 1 : end, *be = nl ? nl : end;
        if (be > s && be[-1] == '\r') be--;
        st[i] = s - raw;
        tl[i] = (unsigned char)(e - be);
        pd[i] = -1;
        kd[i] = S_OTHER;
        const unsigned char *line = s;
        s = e;
        if (all_space(line, be)) {
            kd[i] = S_BLANK;
        } else if (be - line == 2 && line[0] == '-' && line[1] == '-') {
            kd[i] = S_SEP;
        } else if (holds(line, be, "inary file ", 11)) {  /* a binary notice or not: the caller's */
            todo_v[ntodo++] = i;
            kd[i] = S_LEFT;  /* not a context line for pass 2 */
        } else {
            Py_ssize_t len = match_path(line, be, numbered);
            if (!len) continue;
            Py_ssize_t before = t.n;
            Py_ssize_t id = table_intern(&t, (const char *)line, len, hash_bytes((const char *)line, len), NULL);
            if (id < 0) {
                PyErr_NoMemory();
                goto done;
            }
            if (t.n > before) {  /* a new path: can it be one? */
                if (grow_goods(&goods, &goods_cap, t.n) < 0) goto done;
                PyObject *answer = PyObject_CallOneArg(good, t.keys[id]);
                int ok = answer ? PyObject_IsTrue(answer) : -1;
                Py_XDECREF(answer);
                if (ok < 0) goto done;
                goods[id] = (char)ok;
            }
            if (goods[id]) {
                kd[i] = S_MATCH;
                pd[i] = (int32_t)id;
            }
        }
    }
    st[n] = view.len;
    Py_ssize_t first_todo = ntodo;
    for (Py_ssize_t i = 0; numbered && i < n; i++) {  /* pass 2: context lines "path-12-text" of a known path */
        if (kd[i] != S_OTHER) continue;
        const unsigned char *line = raw + st[i], *be = raw + st[i + 1] - tl[i];
        Py_ssize_t at = context_at(line, be);
        if (at < 0) continue;
        Py_ssize_t id = at ? table_find(&t, (const char *)line, at, hash_bytes((const char *)line, at)) : -1;
        if (id >= 0 && goods[id]) {
            kd[i] = S_CONTEXT;
            pd[i] = (int32_t)id;
        } else {
            todo_v[ntodo++] = i;  /* the first "-12-" ends no known path: the caller looks further */
        }
    }
    for (Py_ssize_t k = 0; k < first_todo; k++) kd[todo_v[k]] = S_OTHER;
    paths = PyList_New(t.n);
    if (!paths) goto done;
    for (Py_ssize_t e = 0; e < t.n; e++) {
        Py_INCREF(t.keys[e]);
        PyList_SET_ITEM(paths, e, t.keys[e]);
    }
    PyObject *plain = int64_bytes(todo_v, first_todo), *context = int64_bytes(todo_v + first_todo, ntodo - first_todo);
    if (plain && context) todo = PyTuple_Pack(2, plain, context);
    Py_XDECREF(plain);
    Py_XDECREF(context);
    if (!todo) goto done;
    result = PyTuple_Pack(6, starts, tails, kinds, pids, paths, todo);
done:
    Py_XDECREF(starts);
    Py_XDECREF(tails);
    Py_XDECREF(kinds);
    Py_XDECREF(pids);
    Py_XDECREF(paths);
    Py_XDECREF(todo);
    table_free(&t);
    PyMem_Free(goods);
    PyMem_Free(todo_v);
    PyBuffer_Release(&view);
    return result;
}

/* ---- text: runs of repeated lines and blocks ------------------------------------------------------ */

/* Scratch arrays that grow by doubling and are freed before the call returns. On POSIX they are pages of
 * their own (mmap): freeing a big malloc'ed block raises glibc's mmap threshold to its size, so that later
 * big objects (the reduced text, megabytes) come from the heap, whose freed space stays resident (20 MB of
 * text peaked 5 MB higher that way). */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
static void *scratch_grow(void *p, size_t old, size_t size) {
    void *q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) return NULL;
    if (p) {
        memcpy(q, p, old);
        munmap(p, old);
    }
    return q;
}
static void scratch_free(void *p, size_t size) {
    if (p) munmap(p, size);
}
#else
static void *scratch_grow(void *p, size_t old, size_t size) {
    (void)old;
    return PyMem_Realloc(p, size);
}
static void scratch_free(void *p, size_t size) {
    (void)size;
    PyMem_Free(p);
}
#endif

typedef struct {
    int64_t *v;
    Py_ssize_t n, cap;
} I64s;

static int i64s_push(I64s *a, int64_t x) {
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? a->cap * 2 : 1024;
        int64_t *v = scratch_grow(a->v, (size_t)a->cap * sizeof(int64_t), (size_t)cap * sizeof(int64_t));
        if (!v) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

typedef struct {
    int64_t first, period, copies, start, first_end, end;  /* lines; then offsets of first, first + period, the end */
} Found;

static int found_order(const void *x, const void *y) {
    const Found *a = x, *b = y;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    if (a->period != b->period) return a->period < b->period ? -1 : 1;
    return (a->copies > b->copies) - (a->copies < b->copies);
}

static int has_ink(const unsigned char *s, const unsigned char *e) {  /* a byte bytes.strip() keeps */
    for (; s < e; s++)
        if (!(*s == ' ' || (*s >= '\t' && *s <= '\r'))) return 1;
    return 0;
}

static int found_push(Found **found, Py_ssize_t *n, Py_ssize_t *cap, const Found *f) {
    if (*n == *cap) {
        Py_ssize_t more_cap = *cap ? *cap * 2 : 512;
        Found *more = scratch_grow(*found, (size_t)*cap * sizeof(Found), (size_t)more_cap * sizeof(Found));
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        *found = more;
        *cap = more_cap;
    }
    (*found)[(*n)++] = *f;
    return 0;
}

/* The runs of equal lines ((repeat_min - 1) * period marks or more) of every period, in one pass over the
 * lines: only the last block_max + 2 line starts are kept (a ring), not one per line; a run notes the
 * offsets it needs while they are in the ring. */
static int find_runs(const unsigned char *raw, Py_ssize_t end, Py_ssize_t count, Py_ssize_t periods,
                     Py_ssize_t repeat_min, Found **found, Py_ssize_t *nfound, Py_ssize_t *found_cap) {
    enum { RING = 16 };  /* > block_max + 1 (block_max <= 14) */
    int64_t ring[RING], run[RING] = {0};
    Found at[RING];  /* per period: the run being read */
    const unsigned char *p = raw;
    Py_ssize_t known = 0;  /* lines whose start is in the ring */
    for (Py_ssize_t i = 0; i < count; i++) {
        while (known <= count && known <= i + periods + 1) {  /* the starts of lines i .. i + periods + 1 */
            ring[known % RING] = p - raw;
            if (known < count) p = (const unsigned char *)memchr(p, '\n', (size_t)(raw + end - p)) + 1;
            known++;
        }
        for (Py_ssize_t period = 1; period <= periods; period++) {
            if (i > count - period) break;
            int same = 0;
            if (i < count - period) {
                int64_t a = ring[i % RING], la = ring[(i + 1) % RING] - a;
                int64_t b = ring[(i + period) % RING], lb = ring[(i + period + 1) % RING] - b;
                same = la == lb && memcmp(raw + a, raw + b, (size_t)la) == 0;
            }
            if (same) {
                if (!run[period]) {
                    at[period].first = i;
                    at[period].start = ring[i % RING];
                    at[period].first_end = ring[(i + period) % RING];
                }
                run[period]++;
                continue;
            }
            if (run[period] >= (repeat_min - 1) * period) {  /* its end: line i + 1 .. i + period, in the ring */
                Found *f = &at[period];
                f->period = period;
                f->copies = run[period] / period + 1;
                int64_t last = f->first + period * f->copies;
                f->end = ring[(last < count ? last : count) % RING];
                if (found_push(found, nfound, found_cap, f) < 0) return -1;
            }
            run[period] = 0;
        }
    }
    return 0;
}

static PyObject *text_runs(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t repeat_min, block_max, block_work;
    if (!PyArg_ParseTuple(args, "y*nnn", &view, &repeat_min, &block_max, &block_work)) return NULL;
    if (block_max > 14) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "block_max over 14");
        return NULL;
    }
    const unsigned char *raw = view.buf;
    PyObject *result = NULL;
    I64s cols[5] = {{0}};
    Found *found = NULL;
    Py_ssize_t nfound = 0, found_cap = 0, count = 0, end = 0, periods = 0;
    for (Py_ssize_t i = view.len; i > 0; i--)
        if (raw[i - 1] == '\n') {
            end = i;
            break;
        }
    for (const unsigned char *p = raw, *e = raw + end; p < e; count++) p = (const unsigned char *)memchr(p, '\n', (size_t)(e - p)) + 1;
    for (Py_ssize_t period = 1; period <= block_max; period++) {
        if (count < repeat_min * period || (period > 1 && count * period > block_work)) break;
        periods = period;
    }
    if (repeat_min >= 2 && periods && find_runs(raw, end, count, periods, repeat_min, &found, &nfound, &found_cap) < 0)
        goto done;
    if (nfound) qsort(found, (size_t)nfound, sizeof(Found), found_order);
    int64_t taken = 0;
    for (Py_ssize_t k = 0; k < nfound; k++) {
        Found f = found[k];
        if (f.first < taken) continue;
        int64_t last = f.first + f.period * f.copies;
        if (!has_ink(raw + f.start, raw + f.first_end)) continue;  /* blank lines: the whitespace cut's */
        int64_t one[5] = {f.start, f.first_end, f.end, f.copies, f.period};
        for (int c = 0; c < 5; c++)
            if (i64s_push(&cols[c], one[c]) < 0) goto done;
        taken = last;
    }
    result = PyTuple_New(5);
    if (!result) goto done;
    for (int c = 0; c < 5; c++) {
        PyObject *column = PyBytes_FromStringAndSize((const char *)cols[c].v, cols[c].n * (Py_ssize_t)sizeof(int64_t));
        if (!column) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(result, c, column);
    }
done:
    for (int c = 0; c < 5; c++) scratch_free(cols[c].v, (size_t)cols[c].cap * sizeof(int64_t));
    scratch_free(found, (size_t)found_cap * sizeof(Found));
    PyBuffer_Release(&view);
    return result;
}

/* ---- text: trailing whitespace and blank-line runs ------------------------------------------------- */

/* A line's body: the line without its '\n' and without one '\r' right before it (or before the end). */
static Py_ssize_t body_end_of(const unsigned char *raw, Py_ssize_t start, Py_ssize_t end, int has_nl) {
    Py_ssize_t body = has_nl ? end - 1 : end;
    if (body > start && raw[body - 1] == '\r') body--;
    return body;
}

static int all_blank(const unsigned char *s, const unsigned char *e) {  /* only spaces and tabs */
    for (; s < e; s++)
        if (*s != ' ' && *s != '\t') return 0;
    return 1;
}

static int cut_push(I64s *starts, I64s *ends, int64_t a, int64_t b) {  /* merged where it touches the last */
    if (ends->n && ends->v[ends->n - 1] == a) {
        ends->v[ends->n - 1] = b;
        return 0;
    }
    return i64s_push(starts, a) < 0 || i64s_push(ends, b) < 0 ? -1 : 0;
}

/* One line from start: its end (after its newline) and its body's end; whether it is blank. */
static int line_at(const unsigned char *raw, Py_ssize_t n, Py_ssize_t start, Py_ssize_t *end, Py_ssize_t *body) {
    const unsigned char *nl = memchr(raw + start, '\n', (size_t)(n - start));
    *end = nl ? nl - raw + 1 : n;
    *body = body_end_of(raw, start, *end, nl != NULL);
    return all_blank(raw + start, raw + *body);
}

static PyObject *text_cuts(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf;
    Py_ssize_t n = view.len, pos = 0, trailing = 0, blank = 0;
    I64s starts = {0}, ends = {0};
    PyObject *result = NULL;
    while (pos < n) {
        Py_ssize_t end, body;
        if (!line_at(raw, n, pos, &end, &body)) {  /* a line with words: the spaces and tabs ending its body */
            Py_ssize_t t = body;
            while (t > pos && (raw[t - 1] == ' ' || raw[t - 1] == '\t')) t--;
            if (t < body) {
                if (cut_push(&starts, &ends, t, body) < 0) goto done;
                trailing++;
            }
            pos = end;
            continue;
        }
        Py_ssize_t first_end = end, run_end = end, e2, b2;  /* a run of blank lines: the first stays */
        while (run_end < n && line_at(raw, n, run_end, &e2, &b2)) {
            run_end = e2;
            blank++;
        }
        if (body > pos) {  /* but not its spaces */
            if (cut_push(&starts, &ends, pos, body) < 0) goto done;
            trailing++;
        }
        if (run_end > first_end && cut_push(&starts, &ends, first_end, run_end) < 0) goto done;
        pos = run_end;
    }
    PyObject *s = PyBytes_FromStringAndSize((const char *)starts.v, starts.n * (Py_ssize_t)sizeof(int64_t));
    PyObject *e = s ? PyBytes_FromStringAndSize((const char *)ends.v, ends.n * (Py_ssize_t)sizeof(int64_t)) : NULL;
    if (s && e) result = Py_BuildValue("(NNnn)", s, e, trailing, blank);
    else {
        Py_XDECREF(s);
        Py_XDECREF(e);
    }
done:
    scratch_free(starts.v, (size_t)starts.cap * sizeof(int64_t));
    scratch_free(ends.v, (size_t)ends.cap * sizeof(int64_t));
    PyBuffer_Release(&view);
    return result;
}

/* ---- text: the plan's pieces for the cuts and the folded runs ------------------------------------- */

enum { P_KEEP = 0, P_SHOW = 1, P_OMIT = 2 };  /* operators.reduction's piece kinds */
enum { C_NONE = 0, C_WHITESPACE = 1, C_REPEATS = 2, C_TAGS = 3 };  /* a piece's object: none, a group, a tag */

typedef struct {
    char *kinds;
    I64s starts, ends, codes;
    Py_ssize_t n, cap;
    int64_t pos;
    int first, used, stop;  /* the group omitted first, the groups omitted (bits), a piece not continuing */
} Pieces;

static int pieces_push(Pieces *p, int kind, int64_t a, int64_t b, int64_t code) {
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 4096;
        char *k = scratch_grow(p->kinds, (size_t)p->cap, (size_t)cap);
        if (!k) {
            PyErr_NoMemory();
            return -1;
        }
        p->kinds = k;
        p->cap = cap;
    }
    p->kinds[p->n++] = (char)kind;
    return i64s_push(&p->starts, a) < 0 || i64s_push(&p->ends, b) < 0 || i64s_push(&p->codes, code) < 0 ? -1 : 0;
}

/* Plan.keep / Plan.omit: the span must continue at the position; it lengthens the last piece when that one is
 * of the same kind and object and ends where it starts. */
static int pieces_span(Pieces *p, int kind, int64_t a, int64_t b, int code) {
    if (a != p->pos || b < a) {
        p->stop = 1;
        return 0;
    }
    p->pos = b;
    if (b == a) return 0;
    if (kind == P_OMIT) {
        if (!p->first) p->first = code;
        p->used |= 1 << code;
    }
    Py_ssize_t last = p->n - 1;
    if (p->n && p->kinds[last] == kind && p->ends.v[last] == a && p->codes.v[last] == code) {
        p->ends.v[last] = b;
        return 0;
    }
    return pieces_push(p, kind, a, b, code);
}

/* Plan.show: a text next to a shown text would be one piece, their texts joined: not made here (stop). */
static int pieces_show(Pieces *p, int64_t code) {
    if (p->n && p->kinds[p->n - 1] == P_SHOW) {
        p->stop = 1;
        return 0;
    }
    return pieces_push(p, P_SHOW, 0, 0, code);
}

static int fold_run(Pieces *p, const unsigned char *raw, const int64_t *run, int64_t tag) {
    int64_t start = run[0], first_end = run[1], end = run[2], lines = run[4];
    if (lines == 1) {  /* the line's text, " xN", its line end; the copies */
        int64_t shown_end = first_end - 1;
        if (first_end >= 2 && raw[first_end - 2] == '\r' && first_end - 1 > start) shown_end--;
        return pieces_span(p, P_KEEP, p->pos, shown_end, C_NONE) < 0 || pieces_show(p, tag) < 0 ||
               pieces_span(p, P_KEEP, shown_end, first_end, C_NONE) < 0 ||
               pieces_span(p, P_OMIT, first_end, end, C_REPEATS) < 0 ? -1 : 0;
    }
    return pieces_span(p, P_KEEP, p->pos, first_end, C_NONE) < 0 ||
           pieces_span(p, P_OMIT, first_end, end, C_REPEATS) < 0 || pieces_show(p, tag) < 0 ? -1 : 0;
}

static PyObject *text_pieces(PyObject *self, PyObject *args) {
    Py_buffer v[9];
    int got = 0;
    PyObject *result = NULL;
    Pieces p = {0};
    for (; got < 9; got++) {
        PyObject *arg = PyTuple_GetItem(args, got);
        if (!arg || PyObject_GetBuffer(arg, &v[got], PyBUF_SIMPLE) < 0) goto done;
    }
    if (PyTuple_GET_SIZE(args) != 9) {
        PyErr_SetString(PyExc_TypeError, "text_pieces takes 9 buffers");
        goto done;
    }
    const unsigned char *raw = v[0].buf;
    Py_ssize_t n = v[0].len, nruns = v[1].len / 8, ncuts = v[6].len / 8, ci = 0;
    const int64_t *col[5], *cs = v[6].buf, *ce = v[7].buf;
    const int32_t *tags = v[8].buf;
    for (int c = 0; c < 5; c++) col[c] = v[1 + c].buf;
    int64_t repeated = 0;
    for (Py_ssize_t r = 0; r <= nruns && !p.stop; r++) {
        int64_t run[5];
        for (int c = 0; c < 5; c++) run[c] = r < nruns ? col[c][r] : (c < 3 ? n : 0);
        while (ci < ncuts && ce[ci] <= run[1] && !p.stop) {  /* the cuts before the run and in its first copy */
            if (pieces_span(&p, P_KEEP, p.pos, cs[ci], C_NONE) < 0 ||
                pieces_span(&p, P_OMIT, cs[ci], ce[ci], C_WHITESPACE) < 0) goto done;
            ci++;
        }
        if (r == nruns || p.stop) break;
        if (fold_run(&p, raw, run, C_TAGS + (int64_t)tags[r]) < 0) goto done;
        repeated += run[3] - 1;
        while (ci < ncuts && cs[ci] < run[2]) ci++;  /* cuts inside the folded copies: in the repeats ref */
    }
    if (p.stop) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    result = Py_BuildValue("(NNNNLLii)", PyBytes_FromStringAndSize(p.kinds, p.n),
                           PyBytes_FromStringAndSize((const char *)p.starts.v, p.n * 8),
                           PyBytes_FromStringAndSize((const char *)p.ends.v, p.n * 8),
                           PyBytes_FromStringAndSize((const char *)p.codes.v, p.n * 8), (long long)p.pos,
                           (long long)repeated, p.first, p.used);
done:
    scratch_free(p.kinds, (size_t)p.cap);
    scratch_free(p.starts.v, (size_t)p.starts.cap * sizeof(int64_t));
    scratch_free(p.ends.v, (size_t)p.ends.cap * sizeof(int64_t));
    scratch_free(p.codes.v, (size_t)p.codes.cap * sizeof(int64_t));
    for (int i = 0; i < got; i++) PyBuffer_Release(&v[i]);
    return result;
}

/* ---- lines: the line holding each offset --------------------------------------------------------- */

static PyObject *line_of(PyObject *self, PyObject *args) {
    Py_buffer sv, pv;
    if (!PyArg_ParseTuple(args, "y*y*", &sv, &pv)) return NULL;
    const int64_t *starts = sv.buf, *at = pv.buf;
    Py_ssize_t n = sv.len / (Py_ssize_t)sizeof(int64_t), k = pv.len / (Py_ssize_t)sizeof(int64_t);
    PyObject *out = PyBytes_FromStringAndSize(NULL, k * (Py_ssize_t)sizeof(int64_t));
    if (out) {
        int64_t *o = (int64_t *)PyBytes_AS_STRING(out);
        for (Py_ssize_t j = 0; j < k; j++) {  /* bisect_right(starts, at[j]) - 1 */
            Py_ssize_t lo = 0, hi = n;
            while (lo < hi) {
                Py_ssize_t mid = lo + (hi - lo) / 2;
                if (at[j] < starts[mid]) hi = mid;
                else lo = mid + 1;
            }
            o[j] = (int64_t)lo - 1;
        }
    }
    PyBuffer_Release(&sv);
    PyBuffer_Release(&pv);
    return out;
}

/* The lines bytes.strip() empties (spaces, tabs, CR, VT, FF only), by index; the empty piece after a final
 * newline is no line. */
static PyObject *blank_lines(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf;
    Py_ssize_t n = view.len, pos = 0;
    int64_t line = 0;
    I64s out = {0};
    PyObject *result = NULL;
    while (pos < n) {
        const unsigned char *nl = memchr(raw + pos, '\n', (size_t)(n - pos));
        Py_ssize_t end = nl ? nl - raw : n, k = pos;
        while (k < end && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\r' || raw[k] == '\v' || raw[k] == '\f')) k++;
        if (k == end && i64s_push(&out, line) < 0) goto done;
        line++;
        pos = nl ? end + 1 : n;
    }
    result = PyBytes_FromStringAndSize((const char *)out.v, out.n * (Py_ssize_t)sizeof(int64_t));
done:
    scratch_free(out.v, (size_t)out.cap * sizeof(int64_t));
    PyBuffer_Release(&view);
    return result;
}

/* ---- the diff type's budget ranks ----------------------------------------------------------------- */

static int prefixed(const unsigned char *s, const unsigned char *e, const char *lit) {
    size_t n = strlen(lit);
    return (size_t)(e - s) >= n && memcmp(s, lit, n) == 0;
}

static int file_head(const unsigned char *s, const unsigned char *e) {  /* FILE_HEAD_RE of diff.py */
    static const char *heads[] = {"diff --git ", "diff --cc ", "diff --combined ", "+++ ", "--- ", "rename from ",
                                  "rename to ", "copy from ", "copy to ", "Binary files ", "new file mode ",
                                  "deleted file mode ", "old mode ", "new mode ", "similarity index ",
                                  "dissimilarity index ", "index ", NULL};
    for (int k = 0; heads[k]; k++)
        if (prefixed(s, e, heads[k])) return 1;
    return 0;
}

enum { R_NONE = 255 };

typedef struct {
    unsigned char *codes;  /* tier * 16 + rank, R_NONE: left to the general rules */
    Py_ssize_t *head, nhead, hunk_first, hunk_end;  /* the file's header lines; the open hunk's lines */
    int best, changed;
} Ranking;

static void close_hunk(Ranking *r) {
    if (r->hunk_end > r->hunk_first) {
        int rank = 1 + (r->changed > 3) + (r->changed > 10) + (r->changed > 30) + (r->changed > 100) + (r->changed > 300);
        memset(r->codes + r->hunk_first, rank, (size_t)(r->hunk_end - r->hunk_first));
        r->best = r->best && r->best < rank ? r->best : rank;
    }
    r->hunk_first = r->hunk_end = 0;
    r->changed = 0;
}

static void close_file(Ranking *r) {
    close_hunk(r);
    for (Py_ssize_t k = 0; k < r->nhead; k++) r->codes[r->head[k]] = (unsigned char)(r->best ? r->best : 2 * 16);
    r->nhead = 0;
    r->best = 0;
}

static PyObject *diff_ranks(PyObject *self, PyObject *args) {
    Py_buffer text, starts_v;
    int last_nl;
    if (!PyArg_ParseTuple(args, "y*y*p", &text, &starts_v, &last_nl)) return NULL;
    const unsigned char *raw = text.buf;
    const int64_t *st = starts_v.buf;
    Py_ssize_t n = starts_v.len / 8 - 1, ntodo = 0;
    PyObject *result = NULL, *codes = NULL;
    Ranking r = {0};
    int64_t *todo = NULL;
    if (n < 0) n = 0;
    codes = PyByteArray_FromStringAndSize(NULL, n);
    r.head = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    todo = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!codes || !r.head || !todo) {
        if (codes) PyErr_NoMemory();
        goto done;
    }
    r.codes = (unsigned char *)PyByteArray_AS_STRING(codes);
    memset(r.codes, R_NONE, (size_t)n);
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t a = st[i], b = st[i + 1];
        if (a < 0 || b < a || b > text.len) {
            PyErr_SetString(PyExc_ValueError, "line starts out of range");
            goto done;
        }
        if (b > a && (i + 1 < n || last_nl)) b--;  /* without its newline */
        const unsigned char *s = raw + a, *e = raw + b;
        int hunk = r.hunk_end > r.hunk_first;
        if (prefixed(s, e, "diff --git ") || prefixed(s, e, "diff --cc ") || prefixed(s, e, "diff --combined ")) {
            close_file(&r);
            r.head[r.nhead++] = i;
        } else if (prefixed(s, e, "@@")) {
            close_hunk(&r);
            r.hunk_first = i;
            r.hunk_end = i + 1;
        } else if (hunk && ((e > s && (*s == '+' || *s == '-' || *s == ' ')) || prefixed(s, e, "\xe2\x8b\xaf"))) {
            r.hunk_end = i + 1;
            r.changed += e > s && (*s == '+' || *s == '-');
        } else if (r.nhead && !hunk && file_head(s, e)) {
            r.head[r.nhead++] = i;
        } else {
            close_hunk(&r);
            if (e - s >= 2 && s[0] == ' ' && memchr(s, '|', (size_t)(e - s))) todo[ntodo++] = i;  /* maybe a --stat line */
        }
    }
    close_file(&r);
    PyObject *stat = int64_bytes(todo, ntodo);
    if (stat) result = PyTuple_Pack(2, codes, stat);
    Py_XDECREF(stat);
done:
    Py_XDECREF(codes);
    PyMem_Free(r.head);
    PyMem_Free(todo);
    PyBuffer_Release(&text);
    PyBuffer_Release(&starts_v);
    return result;
}

/* ---- diff: the changed lines whose text is both removed and added (the moved-block search) -------- */

typedef struct {
    uint64_t hash;
    int64_t at;       /* the text after the sign, its line ending included */
    int64_t len;
    uint32_t number;  /* 0 until the first line of a text seen with both signs is met */
    uint32_t signs;   /* 1: seen removed, 2: seen added */
} CommonSlot;

static uint64_t common_hash(const unsigned char *s, int64_t n) {  /* 8 bytes a step, then the tail bytes */
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)n;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
    return h ^ (h >> 32);
}

static void *common_alloc(size_t size) {  /* zeroed; a big block as pages of its own (see scratch_grow) */
    return size >= ((size_t)1 << 17) ? scratch_grow(NULL, 0, size) : PyMem_Calloc(1, size);
}

static void common_free(void *p, size_t size) {
    if (size >= ((size_t)1 << 17)) scratch_free(p, size);
    else PyMem_Free(p);
}

/* diff_common(buf, starts, kinds, skip) -> (lines, numbers, signs) or None: the CHG lines (skip[k] 0, first
 * byte '+' or '-') whose text after the sign (line ending included) is both removed and added, in line
 * order: int64 line indexes, int64 numbers (1, 2, ... in the order of each text's first such line) and
 * their first bytes; None when there is none (diff_twins.diff_common_py). */
static PyObject *diff_common(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, kv, xv;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &bv, &sv, &kv, &xv)) return NULL;
    const unsigned char *raw = bv.buf, *kinds = kv.buf, *skip = xv.buf;
    const int64_t *starts = sv.buf;
    Py_ssize_t n = kv.len, nskip = xv.len, changed = 0, m = 0, common = 0;
    PyObject *result = NULL, *lines = NULL, *numbers = NULL, *signs = NULL;
    CommonSlot *table = NULL;
    uint32_t *slot_of = NULL;
    size_t cap = 16, table_size = 0, slots_size = 0;
    if (sv.len / (Py_ssize_t)sizeof(int64_t) < n + 1) {
        PyErr_SetString(PyExc_ValueError, "diff_common: starts needs an offset a line and the end");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) changed += kinds[k] == D_CHG;
    if (changed >= ((Py_ssize_t)1 << 30)) {
        PyErr_SetString(PyExc_ValueError, "diff_common: too many changed lines");
        goto done;
    }
    while (cap < (size_t)changed * 2) cap <<= 1;
    table_size = cap * sizeof(CommonSlot);
    slots_size = ((size_t)changed + 1) * sizeof(uint32_t);
    table = common_alloc(table_size);
    slot_of = common_alloc(slots_size);
    if (!table || !slot_of) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {  /* each text once in the table, with the signs it is seen with */
        if (kinds[k] != D_CHG || (k < nskip && skip[k])) continue;
        int64_t s = starts[k], e = starts[k + 1];
        if (s < 0 || e > bv.len || s >= e || (raw[s] != '-' && raw[s] != '+')) continue;
        const unsigned char *text = raw + s + 1;
        int64_t len = e - s - 1;
        uint64_t h = common_hash(text, len);
        size_t i = (size_t)h & (cap - 1);
        while (table[i].signs && !(table[i].hash == h && table[i].len == len && !memcmp(raw + table[i].at, text, (size_t)len)))
            i = (i + 1) & (cap - 1);
        if (!table[i].signs) {
            table[i].hash = h;
            table[i].at = s + 1;
            table[i].len = len;
        }
        table[i].signs |= raw[s] == '-' ? 1u : 2u;
        slot_of[m++] = (uint32_t)i;
    }
    for (Py_ssize_t j = 0; j < m; j++) common += table[slot_of[j]].signs == 3;
    if (!common) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    lines = PyBytes_FromStringAndSize(NULL, common * 8);
    numbers = PyBytes_FromStringAndSize(NULL, common * 8);
    signs = PyBytes_FromStringAndSize(NULL, common);
    if (!lines || !numbers || !signs) goto done;
    int64_t *lo = (int64_t *)PyBytes_AS_STRING(lines), *no = (int64_t *)PyBytes_AS_STRING(numbers);
    char *so = PyBytes_AS_STRING(signs);
    uint32_t next = 0;
    Py_ssize_t j = 0, c = 0;
    for (Py_ssize_t k = 0; k < n; k++) {  /* the same lines again, in order: those of common texts */
        if (kinds[k] != D_CHG || (k < nskip && skip[k])) continue;
        int64_t s = starts[k], e = starts[k + 1];
        if (s < 0 || e > bv.len || s >= e || (raw[s] != '-' && raw[s] != '+')) continue;
        CommonSlot *slot = &table[slot_of[j++]];
        if (slot->signs != 3) continue;
        if (!slot->number) slot->number = ++next;
        lo[c] = k;
        no[c] = slot->number;
        so[c++] = (char)raw[s];
    }
    result = PyTuple_Pack(3, lines, numbers, signs);
done:
    Py_XDECREF(lines);
    Py_XDECREF(numbers);
    Py_XDECREF(signs);
    if (table) common_free(table, table_size);
    if (slot_of) common_free(slot_of, slots_size);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&xv);
    return result;
}

/* ---- end of diff_common ------------------------------------------------------------------------------ */

/* ---- diff: a diff plan's pieces, a run of lines at a time (diff_twins.diff_pieces_py) ------------------ */

enum { DP_KEEP = 0, DP_SHOW = 1, DP_OMIT = 2, DP_SPECIAL = 6 };
enum { DP_CONTEXT = 0, DP_BINARY = 1, DP_BLOCK = 2 };

typedef struct {
    unsigned char *kinds;
    int64_t *starts, *ends, *codes;
    Py_ssize_t n, cap;
    int64_t pos, omitted;
    int line_ends, merged;
    const unsigned char *raw;
} DiffPieces;

static int dp_add(DiffPieces *p, int kind, int64_t start, int64_t end, int64_t code) {
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 256;
        unsigned char *k = PyMem_Realloc(p->kinds, (size_t)cap);
        if (!k) return -1;
        p->kinds = k;
        int64_t *cols[3] = {p->starts, p->ends, p->codes};
        for (int c = 0; c < 3; c++) {
            int64_t *v = PyMem_Realloc(cols[c], (size_t)cap * sizeof(int64_t));
            if (!v) return -1;
            cols[c] = v;
        }
        p->starts = cols[0];
        p->ends = cols[1];
        p->codes = cols[2];
        p->cap = cap;
    }
    p->kinds[p->n] = (unsigned char)kind;
    p->starts[p->n] = start;
    p->ends[p->n] = end;
    p->codes[p->n++] = code;
    return 0;
}

static int dp_keep(DiffPieces *p, int64_t start, int64_t end) {
    if (end != start) {
        if (p->n && p->kinds[p->n - 1] == DP_KEEP && p->ends[p->n - 1] == start) p->ends[p->n - 1] = end;
        else if (dp_add(p, DP_KEEP, start, end, 0) < 0) return -1;
        p->line_ends = p->raw[end - 1] == '\n';
    }
    p->pos = end;
    return 0;
}

static int dp_cut(DiffPieces *p, int64_t start, int64_t end) {  /* what is left stays, then start:end goes */
    if (dp_keep(p, p->pos, start) < 0) return -1;
    if (end != start) {
        p->omitted += end - start;
        if (p->n && p->kinds[p->n - 1] == DP_OMIT && p->ends[p->n - 1] == start) p->ends[p->n - 1] = end;
        else if (dp_add(p, DP_OMIT, start, end, 1) < 0) return -1;
    }
    p->pos = end;
    return 0;
}

static int dp_show(DiffPieces *p, int64_t value, int family, int crlf) {
    if (p->n && p->kinds[p->n - 1] == DP_SHOW) p->merged = 1;
    int lead = family != DP_CONTEXT && !p->line_ends;
    p->line_ends = 1;
    return dp_add(p, DP_SHOW, 0, 0, 2 + (value << 4 | family << 2 | lead << 1 | crlf));
}

static int dp_crlf(const unsigned char *raw, int64_t start, int64_t end) {
    return end - start >= 2 && raw[end - 2] == '\r' && raw[end - 1] == '\n';
}

static int dp_mixed(const unsigned char *raw, const int64_t *starts, const unsigned char *kinds, Py_ssize_t n,
                    Py_ssize_t k, int step) {  /* diff_twins._mixed */
    int plus = 0, minus = 0;
    for (; k >= 0 && k < n && (kinds[k] == D_CHG || kinds[k] == D_NONL); k += step) {
        if (kinds[k] != D_CHG) continue;
        unsigned char sign = raw[starts[k]];
        if (sign == '+') plus = 1;
        else if (sign == '-') minus = 1;
        else return 1;
        if (plus && minus) return 1;
    }
    return 0;
}

static int dp_digits(int64_t v) {
    int d = 1;
    while (v >= 10) v /= 10, d++;
    return d;
}

static PyObject *diff_pieces(PyObject *self, PyObject *args) {
    Py_buffer bv, sv, kv, fv, ev, lv;
    Py_ssize_t keep_n, pure_n;
    if (!PyArg_ParseTuple(args, "y*y*y*nny*y*y*", &bv, &sv, &kv, &keep_n, &pure_n, &fv, &ev, &lv)) return NULL;
    const unsigned char *raw = bv.buf, *kinds = kv.buf;
    const int64_t *starts = sv.buf, *sp_first = fv.buf, *sp_end = ev.buf, *sp_len = lv.buf;
    Py_ssize_t n = kv.len, nsp = fv.len / (Py_ssize_t)sizeof(int64_t), sp = 0;
    int64_t cut_context = 0, cut_meta = 0, cut_binary = 0;
    DiffPieces p = {0};
    p.raw = raw;
    p.line_ends = 1;
    PyObject *result = NULL;
    int failed = 0, desync = 0;
    if (sv.len / (Py_ssize_t)sizeof(int64_t) < n + 1 || ev.len / (Py_ssize_t)sizeof(int64_t) < nsp
        || lv.len / (Py_ssize_t)sizeof(int64_t) < nsp || starts[n] > bv.len) {
        PyErr_SetString(PyExc_ValueError, "diff_pieces: columns of different lengths");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n && !failed && !desync;) {
        unsigned char kind = kinds[i];
        Py_ssize_t j = i + 1;
        if (kind == D_OTHER || kind == D_CHG || kind == D_NONL) {
            while (j < n && (kinds[j] == D_OTHER || kinds[j] == D_CHG || kinds[j] == D_NONL)) j++;
        } else if (kind == D_CTX || kind == D_META || kind == D_BIN || kind == DP_SPECIAL) {
            while (j < n && kinds[j] == kind) j++;
        } else {  /* no run of RUN_RE's: passed over one line at a time */
            i = j;
            continue;
        }
        if (kind == D_CTX) {
            Py_ssize_t head = 0, tail = 0;
            if (i > 0 && (kinds[i - 1] == D_CHG || kinds[i - 1] == D_NONL))
                head = keep_n == pure_n || dp_mixed(raw, starts, kinds, n, i - 1, -1) ? keep_n : pure_n;
            if (j < n && (kinds[j] == D_CHG || kinds[j] == D_NONL))
                tail = keep_n == pure_n || dp_mixed(raw, starts, kinds, n, j, 1) ? keep_n : pure_n;
            if (j < n && kinds[j] == D_NONL && tail < 1) tail = 1;
            Py_ssize_t a = i + head, b = j - tail;
            if (b > a) {
                int64_t start = starts[a], end = starts[b];
                int crlf = dp_crlf(raw, starts[b - 1], end);
                if (end - start > 4 + dp_digits(b - a) + 1 + crlf) {
                    failed = dp_cut(&p, start, end) < 0 || dp_show(&p, b - a, DP_CONTEXT, crlf) < 0;
                    cut_context += b - a;
                }
            }
        } else if (kind == D_META) {
            failed = dp_cut(&p, starts[i], starts[j]) < 0;
            cut_meta += j - i;
        } else if (kind == D_BIN) {
            failed = dp_cut(&p, starts[i], starts[j]) < 0
                     || dp_show(&p, j - i, DP_BINARY, dp_crlf(raw, starts[j - 1], starts[j])) < 0;
            cut_binary += j - i;
        } else if (kind == DP_SPECIAL) {
            for (Py_ssize_t k = i; k < j && !failed;) {
                while (sp < nsp && sp_first[sp] < k) sp++;
                if (sp >= nsp || sp_first[sp] != k || sp_end[sp] <= k || sp_end[sp] > n) {
                    desync = 1;
                    break;
                }
                failed = dp_cut(&p, starts[k], starts[sp_end[sp]]) < 0
                         || (sp_len[sp] && dp_show(&p, sp, DP_BLOCK, 0) < 0);
                k = sp_end[sp];
            }
        }
        i = j;
    }
    if (!failed && !desync) failed = dp_keep(&p, p.pos, (int64_t)bv.len) < 0;
    if (failed) {
        PyErr_NoMemory();
    } else if (desync || p.merged) {
        result = Py_None;
        Py_INCREF(result);
    } else {
        static const char none[1] = "";  /* y# of NULL is None: no pieces are empty bytes */
        result = Py_BuildValue("(y#y#y#y#LLLL)", p.n ? (const char *)p.kinds : none, p.n,
                               p.n ? (const char *)p.starts : none, p.n * 8, p.n ? (const char *)p.ends : none, p.n * 8,
                               p.n ? (const char *)p.codes : none, p.n * 8, (long long)cut_context,
                               (long long)cut_meta, (long long)cut_binary, (long long)p.omitted);
    }
done:
    PyMem_Free(p.kinds);
    PyMem_Free(p.starts);
    PyMem_Free(p.ends);
    PyMem_Free(p.codes);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&fv);
    PyBuffer_Release(&ev);
    PyBuffer_Release(&lv);
    return result;
}

/* ---- end of diff_pieces ------------------------------------------------------------------------------ */

/* ---- signals: the changed lines a diff's SIGNAL check asks for (diff_twins.changed_lines_py) ---------- */

enum { CL_MINUS = 1, CL_PLUS = 2, CL_MINUS_FIRST = 4, CL_PLUS_FIRST = 8 };

typedef struct {
    uint64_t hash;
    int64_t at;    /* the text after the sign, trailing CRs stripped */
    uint32_t len;
    uint32_t flags;  /* the signs it is seen with; the signs with which it is among the first bodies */
} ChangedSlot;

/* Each line of buf starting with '+' (not followed by "++ ") or '-' (not "-- "), its trailing CRs stripped,
 * longer than its sign: yields (start, length) of the text after the sign and the sign. */
static int cl_next(const unsigned char *raw, Py_ssize_t n, Py_ssize_t *pos, int64_t *at, int64_t *len, unsigned char *sign) {
    while (*pos < n) {
        Py_ssize_t s = *pos;
        const unsigned char *nl = memchr(raw + s, '\n', (size_t)(n - s));
        Py_ssize_t e = nl ? nl - raw : n;
        *pos = nl ? e + 1 : n;
        unsigned char c = raw[s];
        if (c != '+' && c != '-') continue;
        if (e - s >= 4 && raw[s + 1] == c && raw[s + 2] == c && raw[s + 3] == ' ') continue;
        while (e > s && raw[e - 1] == '\r') e--;
        if (e - s <= 1) continue;
        *at = s + 1;
        *len = e - s - 1;
        *sign = c;
        return 1;
    }
    return 0;
}

static PyObject *changed_lines(PyObject *self, PyObject *args) {
    Py_buffer bv;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "y*n", &bv, &limit)) return NULL;
    const unsigned char *raw = bv.buf;
    Py_ssize_t n = bv.len, pos = 0, count = 0, nfirst = 0, first_cap = limit > 0 ? 2 * limit : 0;
    int64_t at, len;
    unsigned char sign;
    PyObject *out = NULL;
    ChangedSlot *table = NULL;
    int64_t *firsts = NULL;  /* slot * 2 + (1 for '+') of each of the first distinct bodies */
    size_t cap = 16, table_size = 0;
    while (cl_next(raw, n, &pos, &at, &len, &sign)) count++;
    while (cap < (size_t)count * 2) cap <<= 1;
    table_size = cap * sizeof(ChangedSlot);
    table = common_alloc(table_size);
    firsts = PyMem_Malloc(sizeof(int64_t) * (size_t)(first_cap ? first_cap : 1));
    if (!table || !firsts) {
        PyErr_NoMemory();
        goto done;
    }
    pos = 0;
    while (cl_next(raw, n, &pos, &at, &len, &sign)) {
        if (len >= ((int64_t)1 << 32)) {
            PyErr_SetString(PyExc_ValueError, "changed_lines: a line of 4 GiB or more");
            goto done;
        }
        const unsigned char *text = raw + at;
        uint64_t h = common_hash(text, len);
        size_t i = (size_t)h & (cap - 1);
        while (table[i].flags && !(table[i].hash == h && table[i].len == (uint32_t)len && !memcmp(raw + table[i].at, text, (size_t)len)))
            i = (i + 1) & (cap - 1);
        if (!table[i].flags) {
            table[i].hash = h;
            table[i].at = at;
            table[i].len = (uint32_t)len;
        }
        uint32_t seen = sign == '+' ? CL_PLUS : CL_MINUS, first = sign == '+' ? CL_PLUS_FIRST : CL_MINUS_FIRST;
        table[i].flags |= seen;
        if (nfirst < first_cap && !(table[i].flags & first)) {
            table[i].flags |= first;
            firsts[nfirst++] = (int64_t)i * 2 + (sign == '+');
        }
    }
    if (!(out = PyList_New(0))) goto done;
    for (Py_ssize_t k = 0; k < nfirst && PyList_GET_SIZE(out) < limit; k++) {
        ChangedSlot *slot = &table[firsts[k] / 2];
        int plus = (int)(firsts[k] & 1);
        if (slot->flags & (plus ? CL_MINUS : CL_PLUS)) continue;  /* seen with the other sign too: moved */
        PyObject *body = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)slot->len + 1);
        if (!body) {
            Py_CLEAR(out);
            goto done;
        }
        PyBytes_AS_STRING(body)[0] = plus ? '+' : '-';
        memcpy(PyBytes_AS_STRING(body) + 1, raw + slot->at, slot->len);
        int failed = PyList_Append(out, body);
        Py_DECREF(body);
        if (failed) {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    if (table) common_free(table, table_size);
    PyMem_Free(firsts);
    PyBuffer_Release(&bv);
    return out;
}

/* ---- end of changed_lines ---------------------------------------------------------------------------- */

/* ---- ranking: a tier's lines in rank order (text_twins.tier_order_py) ---------------------------------- */

typedef struct {
    int64_t rank;
    int32_t line;
} RankedLine;

static int ranked_cmp(const void *a, const void *b) {
    const RankedLine *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int64_t rank_at(const char *ranks, Py_ssize_t itemsize, Py_ssize_t i) {
    if (itemsize == 1) return (int64_t)((const signed char *)ranks)[i];
    if (itemsize == 4) return (int64_t)((const int32_t *)ranks)[i];
    return ((const int64_t *)ranks)[i];
}

/* tier_order(tiers, ranks, itemsize, tier) -> (int32 indexes of the lines of that tier, stably sorted by rank;
 * how many lead with the first one's rank). ranks: signed integers of itemsize bytes (1, 4 or 8) a line. */
static PyObject *tier_order(PyObject *self, PyObject *args) {
    Py_buffer tv, rv;
    Py_ssize_t itemsize;
    int tier;
    if (!PyArg_ParseTuple(args, "y*y*ni", &tv, &rv, &itemsize, &tier)) return NULL;
    const unsigned char *tiers = tv.buf;
    const char *ranks = rv.buf;
    Py_ssize_t n = tv.len, m = 0, best = 0;
    PyObject *out = NULL, *result = NULL;
    RankedLine *pairs = NULL;
    if ((itemsize != 1 && itemsize != 4 && itemsize != 8) || rv.len < n * itemsize || n >= ((Py_ssize_t)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "tier_order: ranks of 1, 4 or 8 bytes, one a line");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) m += tiers[i] == tier;
    if (!(out = PyBytes_FromStringAndSize(NULL, m * 4))) goto done;
    int32_t *o = (int32_t *)PyBytes_AS_STRING(out);
    if (itemsize == 1) {  /* a counting sort: stable */
        Py_ssize_t at[257] = {0};
        for (Py_ssize_t i = 0; i < n; i++)
            if (tiers[i] == tier) at[(int)((const signed char *)ranks)[i] + 129]++;
        for (int v = 1; v < 257; v++) at[v] += at[v - 1];
        for (Py_ssize_t i = 0; i < n; i++)
            if (tiers[i] == tier) o[at[(int)((const signed char *)ranks)[i] + 128]++] = (int32_t)i;
    } else {
        Py_ssize_t k = 0;
        int sorted = 1;
        int64_t last = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (tiers[i] != tier) continue;
            int64_t r = rank_at(ranks, itemsize, i);
            if (k && r < last) sorted = 0;
            last = r;
            o[k++] = (int32_t)i;
        }
        if (!sorted) {
            if (!(pairs = PyMem_Malloc(sizeof(RankedLine) * (size_t)(m ? m : 1)))) {
                PyErr_NoMemory();
                goto done;
            }
            for (Py_ssize_t j = 0; j < m; j++) {
                pairs[j].rank = rank_at(ranks, itemsize, o[j]);
                pairs[j].line = o[j];
            }
            qsort(pairs, (size_t)m, sizeof(RankedLine), ranked_cmp);
            for (Py_ssize_t j = 0; j < m; j++) o[j] = pairs[j].line;
        }
    }
    if (m) {
        int64_t first = rank_at(ranks, itemsize, o[0]);
        while (best < m && rank_at(ranks, itemsize, o[best]) == first) best++;
    }
    result = Py_BuildValue("(On)", out, best);
done:
    Py_XDECREF(out);
    PyMem_Free(pairs);
    PyBuffer_Release(&tv);
    PyBuffer_Release(&rv);
    return result;
}

/* ---- end of tier_order ------------------------------------------------------------------------------- */

/* ---- git log: a patch's plan spliced into the log's plan (gitlog._Emitter._pieces, its Python steps) ---- */

enum { GS_KEEP = 0, GS_SHOW = 1, GS_OMIT = 2 };

typedef struct {
    const unsigned char *raw;
    PyObject *group, *objs;  /* objs: a list, an object a piece */
    unsigned char *kinds;
    int64_t *starts, *ends;
    Py_ssize_t n, cap;
    int64_t pos, omitted, shown;
    int line_ends;
} Splice;

static int gs_add(Splice *p, int kind, int64_t start, int64_t end, PyObject *obj) {
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 256;
        unsigned char *k = PyMem_Realloc(p->kinds, (size_t)cap);
        if (!k) return -1;
        p->kinds = k;
        int64_t *s = PyMem_Realloc(p->starts, (size_t)cap * sizeof(int64_t));
        if (!s) return -1;
        p->starts = s;
        int64_t *e = PyMem_Realloc(p->ends, (size_t)cap * sizeof(int64_t));
        if (!e) return -1;
        p->ends = e;
        p->cap = cap;
    }
    if (PyList_Append(p->objs, obj) < 0) return -1;
    p->kinds[p->n] = (unsigned char)kind;
    p->starts[p->n] = start;
    p->ends[p->n++] = end;
    return 0;
}

static int gs_keep(Splice *p, int64_t start, int64_t end) {  /* Plan.keep (start at the position) */
    if (start != p->pos || end < start) return 1;
    if (end != start) {
        if (p->n && p->kinds[p->n - 1] == GS_KEEP && p->ends[p->n - 1] == start) p->ends[p->n - 1] = end;
        else if (gs_add(p, GS_KEEP, start, end, Py_None) < 0) return -1;
        p->line_ends = p->raw[end - 1] == '\n';
    }
    p->pos = end;
    return 0;
}

static int gs_omit_to(Splice *p, int64_t end) {  /* _Emitter.omit_to */
    if (end <= p->pos) return 0;
    p->omitted += end - p->pos;
    if (p->n && p->kinds[p->n - 1] == GS_OMIT && p->ends[p->n - 1] == p->pos && PyList_GET_ITEM(p->objs, p->n - 1) == p->group)
        p->ends[p->n - 1] = end;
    else if (gs_add(p, GS_OMIT, p->pos, end, p->group) < 0) return -1;
    p->pos = end;
    return 0;
}

static int gs_show(Splice *p, PyObject *text) {  /* _Emitter.show, Plan.show: texts in a row are joined */
    if (!PyBytes_Check(text)) return 1;
    Py_ssize_t len = PyBytes_GET_SIZE(text);
    p->shown += len;
    if (!len) return 0;
    if (p->n && p->kinds[p->n - 1] == GS_SHOW) {
        PyObject *joined = PyBytes_FromStringAndSize(NULL, PyBytes_GET_SIZE(PyList_GET_ITEM(p->objs, p->n - 1)) + len);
        if (!joined) return -1;
        PyObject *last = PyList_GET_ITEM(p->objs, p->n - 1);
        memcpy(PyBytes_AS_STRING(joined), PyBytes_AS_STRING(last), (size_t)PyBytes_GET_SIZE(last));
        memcpy(PyBytes_AS_STRING(joined) + PyBytes_GET_SIZE(last), PyBytes_AS_STRING(text), (size_t)len);
        PyList_SetItem(p->objs, p->n - 1, joined);  /* (steals joined, drops last) */
    } else if (gs_add(p, GS_SHOW, 0, 0, text) < 0) {
        return -1;
    }
    p->line_ends = PyBytes_AS_STRING(text)[len - 1] == '\n';
    return 0;
}

/* gitlog.HINT_RE at the start of text: "\n"?, "⋯ ", digits, "\r"? "\n": the end of the match, -1 for none */
static Py_ssize_t gs_hint(PyObject *text, int *crlf) {
    const char *s = PyBytes_AS_STRING(text);
    Py_ssize_t n = PyBytes_GET_SIZE(text), i = 0;
    if (i < n && s[i] == '\n') i++;
    if (n - i < 4 || memcmp(s + i, "\xe2\x8b\xaf ", 4)) return -1;
    i += 4;
    Py_ssize_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return -1;
    *crlf = i < n && s[i] == '\r';
    i += *crlf;
    if (i >= n || s[i] != '\n') return -1;
    return i + 1;
}

/* _Emitter._omit_part: a part of an omitted piece goes; with the diff's hint, its own "⋯ N" (N: its lines) */
static int gs_part(Splice *p, int64_t a, int64_t b, int hinted, int crlf) {
    if (b <= a) return 0;
    int r = gs_omit_to(p, b);
    if (r || !hinted) return r;
    const unsigned char *raw = p->raw;
    int64_t lines = 0;
    for (int64_t i = a; i < b;) {  /* each line (a part is whole lines) */
        if ((b - i >= 6 && !memcmp(raw + i, "index ", 6)) || (b - i >= 9 && !memcmp(raw + i, "old mode ", 9))
            || (b - i >= 17 && !memcmp(raw + i, "similarity index ", 17))
            || (b - i >= 20 && !memcmp(raw + i, "dissimilarity index ", 20)))
            return 1;  /* maybe an index/mode line, not counted (diff_twins.META_RE): the Python steps count */
        const unsigned char *nl = memchr(raw + i, '\n', (size_t)(b - i));
        i = nl ? nl - raw + 1 : b;
        lines++;
    }
    if (!lines) return 0;
    char buf[48];
    int len = snprintf(buf + 1, sizeof(buf) - 1, "\xe2\x8b\xaf %lld%s", (long long)lines, crlf ? "\r\n" : "\n");
    buf[0] = '\n';
    PyObject *text = p->line_ends ? PyBytes_FromStringAndSize(buf + 1, len) : PyBytes_FromStringAndSize(buf, len + 1);
    if (!text) return -1;
    r = gs_show(p, text);
    Py_DECREF(text);
    return r;
}

/* gitlog_splice(raw, offset, kinds, starts, ends, objs, first, stop, over_k, over_text, split, sig_starts, sig_ends,
 *               group, pos, line_ends) -> (kinds, starts, ends, objs, omitted, shown) or None.
 * Pieces first:stop of a patch's plan (kinds, starts, ends relative to offset, objs; piece over_k shows
 * over_text instead) as the log's plan takes them from position pos: kept and shown as they are, omitted
 * into group but each piece starting at one of split (int64, in order): its lines sig_starts:sig_ends (in
 * order) stay, each part around them goes, and when the diff's text after the piece is a hint "⋯ N", each
 * part shows its own and the rest of that text is shown in its place. None: the Python steps are needed. */
static PyObject *gitlog_splice(PyObject *self, PyObject *args) {
    Py_buffer rv, kv, sv, ev, xv, av, bv;
    PyObject *objs, *over_text, *group;
    Py_ssize_t first, stop, over_k;
    long long offset, pos;
    int line_ends;
    if (!PyArg_ParseTuple(args, "y*Ly*y*y*O!nnnOy*y*y*OLp", &rv, &offset, &kv, &sv, &ev, &PyList_Type, &objs, &first, &stop,
                          &over_k, &over_text, &xv, &av, &bv, &group, &pos, &line_ends))
        return NULL;
    const unsigned char *kinds = kv.buf;
    const int64_t *starts = sv.buf, *ends = ev.buf, *split = xv.buf, *sig_a = av.buf, *sig_b = bv.buf;
    Py_ssize_t n = kv.len, nsplit = xv.len / 8, nsig = av.len / 8, xi = 0, si = 0;
    Splice p = {0};
    p.raw = rv.buf;
    p.group = group;
    p.pos = pos;
    p.line_ends = line_ends;
    PyObject *result = NULL, *pending = NULL;  /* the text the next piece shows instead of its own */
    Py_ssize_t pending_k = -1;
    int r = 0;
    if (first < 0 || stop > n || stop > PyList_GET_SIZE(objs) || sv.len / 8 < n || ev.len / 8 < n || bv.len / 8 < nsig) {
        PyErr_SetString(PyExc_ValueError, "gitlog_splice: columns of different lengths");
        goto done;
    }
    if (!(p.objs = PyList_New(0))) goto done;
    for (Py_ssize_t k = first; k < stop && !r; k++) {
        int kind = kinds[k];
        if (kind == GS_KEEP) {
            r = gs_keep(&p, offset + starts[k], offset + ends[k]);
        } else if (kind == GS_SHOW) {
            PyObject *text = k == pending_k ? pending : k == over_k ? over_text : PyList_GET_ITEM(objs, k);
            r = gs_show(&p, text);
        } else if (kind == GS_OMIT) {
            int64_t a = offset + starts[k], b = offset + ends[k];
            if (a != p.pos) {
                r = 1;
                break;
            }
            while (xi < nsplit && split[xi] < a) xi++;
            if (xi >= nsplit || split[xi] != a) {
                r = gs_omit_to(&p, b);
                continue;
            }
            int hinted = 0, crlf = 0;
            Py_ssize_t hint_end = -1;
            PyObject *nxt = NULL;
            if (k + 1 < stop && kinds[k + 1] == GS_SHOW) {
                nxt = k + 1 == over_k ? over_text : PyList_GET_ITEM(objs, k + 1);
                if (!PyBytes_Check(nxt)) {
                    r = 1;
                    break;
                }
                hint_end = gs_hint(nxt, &crlf);
                hinted = hint_end >= 0;
            }
            int64_t at = a;
            while (si < nsig && sig_a[si] < a) si++;
            for (; !r && si < nsig && sig_a[si] < b; si++) {
                if (sig_a[si] < at || sig_b[si] > b) {
                    r = 1;
                    break;
                }
                r = gs_part(&p, at, sig_a[si], hinted, crlf);
                if (!r) r = gs_keep(&p, sig_a[si], sig_b[si]);
                at = sig_b[si];
            }
            if (!r) r = gs_part(&p, at, b, hinted, crlf);
            if (!r && hinted) {
                Py_XDECREF(pending);
                pending = PyBytes_FromStringAndSize(PyBytes_AS_STRING(nxt) + hint_end, PyBytes_GET_SIZE(nxt) - hint_end);
                if (!pending) r = -1;
                pending_k = k + 1;
            }
        } else {
            r = 1;  /* a marker: the Python steps */
        }
    }
    if (r < 0) goto done;
    if (r > 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    {
        static const char none[1] = "";
        PyObject *k = PyBytes_FromStringAndSize(p.n ? (const char *)p.kinds : none, p.n);
        PyObject *s = PyBytes_FromStringAndSize(p.n ? (const char *)p.starts : none, p.n * 8);
        PyObject *e = PyBytes_FromStringAndSize(p.n ? (const char *)p.ends : none, p.n * 8);
        if (k && s && e) result = Py_BuildValue("(OOOOLL)", k, s, e, p.objs, (long long)p.omitted, (long long)p.shown);
        Py_XDECREF(k);
        Py_XDECREF(s);
        Py_XDECREF(e);
    }
done:
    Py_XDECREF(pending);
    Py_XDECREF(p.objs);
    PyMem_Free(p.kinds);
    PyMem_Free(p.starts);
    PyMem_Free(p.ends);
    PyBuffer_Release(&rv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    PyBuffer_Release(&xv);
    PyBuffer_Release(&av);
    PyBuffer_Release(&bv);
    return result;
}

/* ---- end of gitlog_splice ---------------------------------------------------------------------------- */

/* ---- git log: where the signal matches of a patch's omitted pieces fall (diff_twins.place_matches_py) ---- */

static Py_ssize_t bisect_right_i64(const int64_t *a, Py_ssize_t n, int64_t x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (x < a[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* place_matches(offsets, starts, ends, matches, line_starts, bodies) -> (pieces, lines, inside): for each match
 * (int64 start, end pairs in the joined text of the pieces, piece k's text at offsets[k]), its piece (the last
 * whose text starts at or before it, 0 before the first), its start in the input (starts[k] + s - offsets[k]),
 * the input's line holding that start (line_starts: each line's start, then the end; the last line at most)
 * and whether it lies inside its piece and that line's text (bodies: where each line's text ends). */
static PyObject *place_matches(PyObject *self, PyObject *args) {
    Py_buffer ov, sv, ev, mv, lv, bv;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*", &ov, &sv, &ev, &mv, &lv, &bv)) return NULL;
    const int64_t *offsets = ov.buf, *starts = sv.buf, *ends = ev.buf, *m = mv.buf, *ls = lv.buf, *bodies = bv.buf;
    Py_ssize_t np = ov.len / 8, nm = mv.len / 16, nl = bv.len / 8;
    PyObject *pieces = NULL, *lines = NULL, *inside = NULL, *result = NULL;
    if (sv.len / 8 < np || ev.len / 8 < np || lv.len / 8 < nl + 1 || !np || !nl) {
        PyErr_SetString(PyExc_ValueError, "place_matches: columns of different lengths");
        goto done;
    }
    pieces = PyBytes_FromStringAndSize(NULL, nm * 8);
    lines = PyBytes_FromStringAndSize(NULL, nm * 8);
    inside = PyBytes_FromStringAndSize(NULL, nm);
    if (!pieces || !lines || !inside) goto done;
    int64_t *po = (int64_t *)PyBytes_AS_STRING(pieces), *lo = (int64_t *)PyBytes_AS_STRING(lines);
    char *io = PyBytes_AS_STRING(inside);
    for (Py_ssize_t j = 0; j < nm; j++) {
        int64_t s = m[2 * j], e = m[2 * j + 1];
        Py_ssize_t k = bisect_right_i64(offsets, np, s) - 1;
        if (k < 0) k = 0;
        int64_t rs = starts[k] + s - offsets[k], re = starts[k] + e - offsets[k];
        Py_ssize_t line = bisect_right_i64(ls, nl + 1, rs) - 1;
        if (line > nl - 1) line = nl - 1;
        if (line < 0) line = 0;
        po[j] = k;
        lo[j] = line;
        io[j] = (char)(rs >= starts[k] && rs < ends[k] && re <= bodies[line]);
    }
    result = PyTuple_Pack(3, pieces, lines, inside);
done:
    Py_XDECREF(pieces);
    Py_XDECREF(lines);
    Py_XDECREF(inside);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    PyBuffer_Release(&mv);
    PyBuffer_Release(&lv);
    PyBuffer_Release(&bv);
    return result;
}

/* ---- end of place_matches ---------------------------------------------------------------------------- */

/* ---- output ceiling: a plan's visible text and where each piece starts in it (text_twins.render_view_py) ---- */

/* render_view(raw, kinds, starts, ends, objs, placeholder, vstarts) -> text: kept pieces' bytes of raw, shown
 * pieces' texts (objs: bytes), markers as the placeholder, any other piece nothing; vstarts (int64, n + 1 of
 * them, written): where each piece starts in the text, then its length. None: a kept span outside raw or a
 * text that is no bytes (vstarts untouched). */
static PyObject *render_view(PyObject *self, PyObject *args) {
    Py_buffer rv, kv, sv, ev, pv, vv;
    PyObject *objs, *text = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*O!y*w*", &rv, &kv, &sv, &ev, &PyList_Type, &objs, &pv, &vv)) return NULL;
    const unsigned char *kinds = kv.buf;
    const int64_t *starts = sv.buf, *ends = ev.buf;
    Py_ssize_t n = kv.len, size = 0;
    if (sv.len / 8 < n || ev.len / 8 < n || PyList_GET_SIZE(objs) < n || vv.len / 8 != n + 1) {
        PyErr_SetString(PyExc_ValueError, "render_view: columns of different lengths");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {  /* the text's size, each piece checked: None for an odd one */
        if (kinds[i] == 0) {
            if (starts[i] < 0 || ends[i] < starts[i] || ends[i] > rv.len) goto odd;
            size += (Py_ssize_t)(ends[i] - starts[i]);
        } else if (kinds[i] == 1) {
            PyObject *o = PyList_GET_ITEM(objs, i);
            if (!PyBytes_Check(o)) goto odd;
            size += PyBytes_GET_SIZE(o);
        } else if (kinds[i] == 3) {
            size += pv.len;
        }
    }
    text = PyBytes_FromStringAndSize(NULL, size);
    if (!text) goto done;
    char *t = PyBytes_AS_STRING(text);
    int64_t *v = vv.buf;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        v[i] = at;
        const char *src = NULL;
        Py_ssize_t len = 0;
        if (kinds[i] == 0 && starts[i] >= 0 && ends[i] >= starts[i] && ends[i] <= rv.len) {
            src = (const char *)rv.buf + starts[i];
            len = (Py_ssize_t)(ends[i] - starts[i]);
        } else if (kinds[i] == 1 && PyBytes_Check(PyList_GET_ITEM(objs, i))) {
            src = PyBytes_AS_STRING(PyList_GET_ITEM(objs, i));
            len = PyBytes_GET_SIZE(PyList_GET_ITEM(objs, i));
        } else if (kinds[i] == 3) {
            src = pv.buf;
            len = pv.len;
        }
        if (at + len > size) {
            PyErr_SetString(PyExc_ValueError, "render_view: a piece changed while read");
            goto done;
        }
        if (len) memcpy(t + at, src, (size_t)len);
        at += len;
    }
    v[n] = at;
    result = text;
    text = NULL;
    goto done;
odd:
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(text);
    PyBuffer_Release(&rv);
    PyBuffer_Release(&kv);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ev);
    PyBuffer_Release(&pv);
    PyBuffer_Release(&vv);
    return result;
}

/* ---- end of render_view ------------------------------------------------------------------------------ */

static PyObject *line_starts(PyObject *self, PyObject *args) {
    /* into out (int64 each, exactly as many as needed): where each line starts, then the end of buf
       when the last line has no newline */
    Py_buffer view, out;
    if (!PyArg_ParseTuple(args, "y*w*", &view, &out)) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len, *p, *nl;
    Py_ssize_t k = 1;
    for (p = raw; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) k++;
    if (view.len && raw[view.len - 1] != '\n') k++;
    PyObject *result = NULL;
    if (out.len != k * 8) {
        PyErr_SetString(PyExc_ValueError, "line_starts: out must hold one int64 a line start");
    } else {
        int64_t *st = (int64_t *)out.buf;
        Py_ssize_t j = 0;
        st[j++] = 0;
        for (p = raw; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) st[j++] = nl + 1 - raw;
        if (view.len && raw[view.len - 1] != '\n') st[j++] = view.len;
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&view);
    PyBuffer_Release(&out);
    return result;
}

/* line_bodies(buf, starts, out): into out (one int64 a line, exactly as many as starts has lines) where
   each line's text ends: before its "\n", and before a "\r" then (a non-empty text), as
   reduction.line_body_end reads raw[starts[i]:starts[i + 1]]. */
static PyObject *line_bodies(PyObject *self, PyObject *args) {
    Py_buffer view, st, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &view, &st, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = st.len / 8 - 1;
    const int64_t *starts = (const int64_t *)st.buf;
    if (st.len % 8 || n < 0 || out.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "line_bodies: out must hold one int64 a line of starts");
        goto done;
    }
    const unsigned char *raw = view.buf;
    int64_t *bodies = (int64_t *)out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t a = starts[i], e = starts[i + 1];
        if (a < 0 || e < a || e > view.len) {
            PyErr_SetString(PyExc_ValueError, "line_bodies: a line out of the buffer");
            goto done;
        }
        if (e > 0 && raw[e - 1] == '\n') e--;
        if (e > a && raw[e - 1] == '\r') e--;
        bodies[i] = e;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    PyBuffer_Release(&st);
    PyBuffer_Release(&out);
    return result;
}

/* plain_text(buf, marker) -> -1 when buf holds a byte other than printable ASCII, tab and newline;
   else 1 when it holds marker, 0 when not. The bytes are tested a block at a time, without a branch
   a byte (the compiler vectorises the block's loop). */
#define PLAIN_BLOCK 4096
static PyObject *plain_text(PyObject *self, PyObject *args) {
    Py_buffer view, mark;
    if (!PyArg_ParseTuple(args, "y*y*", &view, &mark)) return NULL;
    const unsigned char *raw = view.buf, *m = mark.buf;
    Py_ssize_t n = view.len, k = mark.len;
    long result = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && result == 0; i += PLAIN_BLOCK) {
        Py_ssize_t stop = n - i < PLAIN_BLOCK ? n - i : PLAIN_BLOCK;
        const unsigned char *p = raw + i;
        unsigned char bad = 0;
        for (Py_ssize_t j = 0; j < stop; j++) {
            unsigned char c = p[j];
            bad |= (unsigned char)((c < 0x20) & (c != '\t') & (c != '\n')) | (unsigned char)(c > 0x7e);
        }
        if (bad) result = -1;
    }
    if (result == 0 && k > 0) {
        const unsigned char *p = raw, *end = raw + n;
        while (end - p >= k && (p = memchr(p, m[0], (size_t)(end - p - k + 1))) != NULL) {
            if (memcmp(p, m, (size_t)k) == 0) { result = 1; break; }
            p++;
        }
    } else if (result == 0) {
        result = 1;  /* the empty marker is in any text */
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyBuffer_Release(&mark);
    return PyLong_FromLong(result);
}

/* Clip start and end to [0, len] as bytes.count does (negative ones count from the end). */
static void clip_range(Py_ssize_t len, Py_ssize_t *start, Py_ssize_t *end) {
    if (*end > len) *end = len;
    else if (*end < 0 && (*end += len) < 0) *end = 0;
    if (*start < 0 && (*start += len) < 0) *start = 0;
}

/* count_newlines(buf, start, end) -> buf.count(b"\n", start, end), a plain loop the compiler vectorises. */
static PyObject *count_newlines(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &end)) return NULL;
    clip_range(view.len, &start, &end);
    const unsigned char *raw = view.buf;
    Py_ssize_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = start; i < end; i++) n += raw[i] == '\n';
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(n);
}

/* long_lines(buf, limit, skip) -> int64 (start, end) pairs: safety.long_lines's loop (its twin,
 * log_twins.long_lines_py) step for step; skip: int64 (start, end) pairs of the regions passed over. */
static PyObject *long_lines(PyObject *self, PyObject *args) {
    Py_buffer view, skip_v;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "y*ny*", &view, &limit, &skip_v)) return NULL;
    const char *raw = view.buf;
    const int64_t *skip = skip_v.buf;
    Py_ssize_t size = view.len, nskip = skip_v.len / (Py_ssize_t)(2 * sizeof(int64_t)), r = 0;
    Py_ssize_t step = limit / 2 > 1 ? limit / 2 : 1, pos = 0;
    I64s found = {0};
    int failed = 0;
    while (pos + step <= size) {
        while (r < nskip && skip[2 * r + 1] <= pos) r++;
        if (r < nskip && skip[2 * r] < pos + step) {
            pos = (Py_ssize_t)skip[2 * r + 1];
            continue;
        }
        if (memchr(raw + pos, '\n', (size_t)step)) {
            pos += step;
            continue;
        }
        Py_ssize_t start = pos;
        while (start > 0 && raw[start - 1] != '\n') start--;
        const char *nl = memchr(raw + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end = nl ? nl - raw : size;
        if (end - start > limit && (i64s_push(&found, start) < 0 || i64s_push(&found, end) < 0)) {
            failed = 1;
            break;
        }
        pos = end + 1;
    }
    PyObject *result = failed ? NULL : int64_bytes(found.v, found.n);  /* i64s_push set the error */
    scratch_free(found.v, (size_t)found.cap * sizeof(int64_t));
    PyBuffer_Release(&view);
    PyBuffer_Release(&skip_v);
    return result;
}

/* ---- the git blame type's code columns ------------------------------------------------------------ */

/* Where the code column of the default-form blame line starting at p begins (BLAME_SCAN of blame_twins.py
 * after the newline before p: hash, anything up to "(", the author and date, the blanks before the line
 * number, the number, ")" and one blank), its number's digits in *digits; -1 when the line is not one. */
static Py_ssize_t blame_column_at(const unsigned char *s, Py_ssize_t p, Py_ssize_t len, Py_ssize_t *digits) {
    Py_ssize_t q = p, h;
    if (q < len && s[q] == '^') q++;
    h = q;
    while (q < len && ((s[q] >= '0' && s[q] <= '9') || (s[q] >= 'a' && s[q] <= 'f'))) q++;
    if (q - h < 4 || q - h > 40 || q >= len || s[q] != ' ') return -1;
    q++;
    while (q < len && s[q] != '(' && s[q] != '\r' && s[q] != '\n') q++;
    if (q >= len || s[q] != '(') return -1;
    q++;
    for (;;) {  /* runs of non-blanks, and runs of blanks not followed by digits and ")" */
        if (q >= len || s[q] == '\n') return -1;
        if (s[q] != ' ') {
            while (q < len && s[q] != ' ' && s[q] != '\n') q++;
            continue;
        }
        while (q < len && s[q] == ' ') q++;
        Py_ssize_t d = q;
        while (q < len && s[q] >= '0' && s[q] <= '9') q++;
        if (q > d && q < len && s[q] == ')') {
            *digits = q - d;
            q++;
            return q < len && s[q] == ' ' ? q + 1 : q;
        }
        q = d;  /* the blanks were the author's or the date's: on after them */
    }
}

static PyObject *blame_columns(PyObject *self, PyObject *args) {
    Py_buffer bv, sv;
    if (!PyArg_ParseTuple(args, "y*y*", &bv, &sv)) return NULL;
    const unsigned char *s = bv.buf;
    const int64_t *starts = sv.buf;
    Py_ssize_t len = bv.len, n = sv.len / (Py_ssize_t)sizeof(int64_t) - 1, width = 0;
    if (n < 0) n = 0;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (out) {
        int64_t *code = (int64_t *)PyBytes_AS_STRING(out);
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t p = (Py_ssize_t)starts[i], digits = 0, c = -1;
            if (p > 0 && p <= len && s[p - 1] == '\n') c = blame_column_at(s, p, len, &digits);
            code[i] = c;
            if (c >= 0 && digits > width) width = digits;
        }
    }
    PyBuffer_Release(&bv);
    PyBuffer_Release(&sv);
    return out ? Py_BuildValue("(Nn)", out, width) : NULL;
}

/* ---- diagnostics: the location lines of a linter's output --------------------------------------- */

static int loc_path_byte(unsigned char c) {  /* [^\s:()] of diagnostics.py's LOC_LINES_RE */
    return !(c == ' ' || (c >= '\t' && c <= '\r') || c == ':' || c == '(' || c == ')');
}

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* LOC_LINES_RE's path:line[:col] then ":" or " - " then " ?" from s + p0 in the line [s, be) (its text up
 * to its '\n'): where its text after the location starts (group 5), or -1; *path_end: where the path ends. */
static Py_ssize_t loc_from(const unsigned char *s, const unsigned char *be, Py_ssize_t p0, Py_ssize_t *path_end) {
    Py_ssize_t len = be - s, p = p0;
    if (p >= len || !loc_path_byte(s[p])) return -1;
    for (p++; p < len && loc_path_byte(s[p]); p++) {}
    if (p >= len || s[p] != ':') return -1;  /* the lazy path can end only before the first ':' */
    *path_end = p;
    Py_ssize_t q = ++p;
    while (q < len && is_digit(s[q])) q++;
    if (q == p) return -1;
    Py_ssize_t after = -1;
    if (q < len && s[q] == ':') {
        Py_ssize_t r = q + 1;
        while (r < len && is_digit(s[r])) r++;
        if (r > q + 1 && r < len && s[r] == ':') after = r + 1;
        else if (r > q + 1 && r + 1 < len && s[r] == ' ' && s[r + 1] == '-') after = r + 2;
        else after = q + 1;  /* no column: the ':' after the line number */
    } else if (q + 1 < len && s[q] == ' ' && s[q + 1] == '-') {
        after = q + 2;
    } else {
        return -1;
    }
    if (after < len && s[after] == ' ') after++;
    return after;
}

static Py_ssize_t loc_match(const unsigned char *s, const unsigned char *be, Py_ssize_t *path_end) {
    Py_ssize_t at = -1;
    if (be - s >= 2 && is_alpha(s[0]) && s[1] == ':') at = loc_from(s, be, 2, path_end);  /* a drive letter */
    if (at < 0) at = loc_from(s, be, 0, path_end);
    return at;
}

static int byte_array_push(char **data, Py_ssize_t *cap, Py_ssize_t *n, const void *item, Py_ssize_t size) {
    if ((*n + 1) * size > *cap) {
        Py_ssize_t more_cap = *cap ? *cap * 2 : 4096;
        char *more = PyMem_Realloc(*data, (size_t)more_cap);
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        *data = more;
        *cap = more_cap;
    }
    memcpy(*data + *n * size, item, (size_t)size);
    return 0;
}

typedef struct { char *data; Py_ssize_t cap, n; } Column;

static int column_push(Column *c, const void *item, Py_ssize_t size) {
    if (byte_array_push(&c->data, &c->cap, &c->n, item, size) < 0) return -1;
    c->n++;
    return 0;
}

static PyObject *table_list(Table *t) {
    PyObject *list = PyList_New(t->n);
    if (!list) return NULL;
    for (Py_ssize_t e = 0; e < t->n; e++) {
        Py_INCREF(t->keys[e]);
        PyList_SET_ITEM(list, e, t->keys[e]);
    }
    return list;
}

static PyObject *diag_heads(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len;
    Column lines = {0}, at_c = {0}, loc_c = {0}, flags = {0}, rest_ids = {0}, path_ids = {0};
    Table rests = {0}, paths = {0};
    PyObject *result = NULL;
    int64_t line = 0;
    for (const unsigned char *s = raw; s < end; line++) {
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        const unsigned char *be = nl ? nl : end;
        const unsigned char *line_s = s;
        s = nl ? nl + 1 : end;
        Py_ssize_t path_end = 0, at = loc_match(line_s, be, &path_end);
        if (at < 0) continue;
        Py_ssize_t loc = at;
        while (loc > 0 && (line_s[loc - 1] == ':' || line_s[loc - 1] == ' ' || line_s[loc - 1] == '-')) loc--;
        unsigned char flag = 0;
        if (holds(line_s, be, "): ", 3) || holds(line_s, be, ".go:", 4)) flag |= 1;
        else {
            const unsigned char *p = line_s;
            while (p < be && *p >= 'a' && *p <= 'z') p++;
            if (p > line_s && p < be && *p == '[') flag |= 1;
        }
        if (line_s[at - 3] == ' ' && line_s[at - 2] == '-' && line_s[at - 1] == ' ') flag |= 2;
        Py_ssize_t rest = table_intern(&rests, (const char *)line_s + at, (be - line_s) - at,
                                       hash_bytes((const char *)line_s + at, (be - line_s) - at), NULL);
        Py_ssize_t path = rest < 0 ? -1 : table_intern(&paths, (const char *)line_s, path_end,
                                                       hash_bytes((const char *)line_s, path_end), NULL);
        if (path < 0) {
            if (!PyErr_Occurred()) PyErr_NoMemory();
            goto done;
        }
        uint32_t line32 = (uint32_t)line;
        int32_t at32 = (int32_t)at, loc32 = (int32_t)loc, rest32 = (int32_t)rest, path32 = (int32_t)path;
        if (column_push(&lines, &line32, 4) < 0 || column_push(&at_c, &at32, 4) < 0 || column_push(&loc_c, &loc32, 4) < 0
            || column_push(&flags, &flag, 1) < 0 || column_push(&rest_ids, &rest32, 4) < 0
            || column_push(&path_ids, &path32, 4) < 0)
            goto done;
    }
    result = Py_BuildValue("(y#y#y#Ny#Ny#N)", lines.data ? lines.data : "", lines.n * 4, at_c.data ? at_c.data : "",
                           at_c.n * 4, loc_c.data ? loc_c.data : "", loc_c.n * 4,
                           PyByteArray_FromStringAndSize(flags.data ? flags.data : "", flags.n),
                           rest_ids.data ? rest_ids.data : "", rest_ids.n * 4, table_list(&rests),
                           path_ids.data ? path_ids.data : "", path_ids.n * 4, table_list(&paths));
done:
    PyMem_Free(lines.data);
    PyMem_Free(at_c.data);
    PyMem_Free(loc_c.data);
    PyMem_Free(flags.data);
    PyMem_Free(rest_ids.data);
    PyMem_Free(path_ids.data);
    table_free(&rests);
    table_free(&paths);
    PyBuffer_Release(&view);
    return result;
}

/* ---- the source type's signature candidates ------------------------------------------------------- */

/* source_lines(buf, max_len, numbered, tests, clauses) -> (lines, (records, ...)): source_twins.py's
 * source_lines_py step for step. tests: (mode, needle) pairs (WORD, LEAD, START, TAIL, FIRST, each maybe
 * with NOT); clauses: for each group a tuple of int masks of test bits; records: int64, SL_FIELDS a line
 * (number, start, end, end less trailing blanks, indent, bits). A line's tests are run as its masks ask for
 * them, the cheap ones (at one place in the line) first, and all of them for a line a group takes: the
 * bits are the twin's. A WORD test keeps where its needle is next found at or after the line it was
 * looked for from: the text is searched once for each needle, not once a line. */
enum { SL_WORD = 0, SL_LEAD = 1, SL_START = 2, SL_TAIL = 3, SL_FIRST = 4, SL_NOT = 8, SL_TESTS = 62, SL_FIELDS = 6 };

static Py_ssize_t number_prefix(const unsigned char *s, Py_ssize_t a, Py_ssize_t e, int64_t *number) {
    Py_ssize_t q = a, d;
    int64_t v = 0;
    while (q < e && q - a < 8 && s[q] == ' ') q++;
    d = q;
    while (q < e && q - d < 7 && s[q] >= '0' && s[q] <= '9') v = v * 10 + (s[q++] - '0');
    if (q == d || q >= e) return -1;
    if (s[q] == '\t') q++;
    else if (s[q] == ' ' || s[q] == ':') {
        q++;
        if (q < e && s[q] == ' ') q++;
    } else return -1;
    *number = v;
    return q;
}

/* Where lit (k bytes) is first found in s[from:to], or -1: memchr looks for its byte at rare (the one
 * least often met in the text's first bytes), then the rest is compared. */
static Py_ssize_t find_in(const unsigned char *s, Py_ssize_t from, Py_ssize_t to, const char *lit, Py_ssize_t k,
                          Py_ssize_t rare) {
    const unsigned char c = (unsigned char)lit[rare];
    Py_ssize_t q = from + rare;
    while (to - (q - rare) >= k) {
        const unsigned char *at = memchr(s + q, c, (size_t)(to - k + 1 - (q - rare)));
        if (!at) break;
        if (memcmp(at - rare, lit, (size_t)k) == 0) return at - rare - s;
        q = at - s + 1;
    }
    return -1;
}

#define SL_WINDOW 65536  /* bytes a WORD test searches at least at once, past the line it is asked for */

typedef struct {
    const unsigned char *raw;
    Py_ssize_t n, p, e, lead, trim;  /* the line: its start (after a printed number), end, first and last ink */
    int modes[SL_TESTS];
    const char *needles[SL_TESTS];
    Py_ssize_t lens[SL_TESTS], rare[SL_TESTS];
    Py_ssize_t next[SL_TESTS];  /* a WORD needle is not found from the last line searched up to here ... */
    char found[SL_TESTS];  /* ... and is found here when found */
} SourceLine;

static int source_test(SourceLine *l, int j) {
    const unsigned char *raw = l->raw;
    Py_ssize_t k = l->lens[j];
    int hit;
    switch (l->modes[j] & ~SL_NOT) {
    case SL_WORD:
        if (l->next[j] > l->e - k) {  /* nowhere in the line */
            hit = 0;
            break;
        }
        if (!(l->found[j] && l->next[j] >= l->p)) {
            Py_ssize_t from = l->next[j] > l->p ? l->next[j] : l->p;
            Py_ssize_t to = l->e > from + SL_WINDOW ? l->e : from + SL_WINDOW;
            if (to > l->n) to = l->n;
            Py_ssize_t at = find_in(raw, from, to, l->needles[j], k, l->rare[j]);
            l->found[j] = at >= 0;
            l->next[j] = at >= 0 ? at : to - k + 1;
        }
        hit = l->found[j] && l->next[j] <= l->e - k;
        break;
    case SL_LEAD:
        hit = l->e - l->lead >= k && raw[l->lead] == (unsigned char)l->needles[j][0]
              && memcmp(raw + l->lead, l->needles[j], (size_t)k) == 0;
        break;
    case SL_START:
        hit = l->e - l->p >= k && raw[l->p] == (unsigned char)l->needles[j][0]
              && memcmp(raw + l->p, l->needles[j], (size_t)k) == 0;
        break;
    case SL_TAIL:
        hit = l->trim - l->p >= k && (k == 0 || raw[l->trim - 1] == (unsigned char)l->needles[j][k - 1])
              && memcmp(raw + l->trim - k, l->needles[j], (size_t)k) == 0;
        break;
    default:
        hit = l->p < l->e && k && memchr(l->needles[j], raw[l->p], (size_t)k) != NULL;
    }
    return (l->modes[j] & SL_NOT) ? !hit : hit;
}

static PyObject *source_lines(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_len;
    int numbered;
    PyObject *tests, *clauses, *result = NULL;
    if (!PyArg_ParseTuple(args, "y*npO!O!", &view, &max_len, &numbered, &PyTuple_Type, &tests, &PyTuple_Type, &clauses))
        return NULL;
    Py_ssize_t nt = PyTuple_GET_SIZE(tests), ng = PyTuple_GET_SIZE(clauses), nm = 0, ni = 0;
    SourceLine l;
    int *order = NULL;  /* each mask's WORD tests (the others are run on every line at once) */
    uint64_t *masks = NULL, cheap = 0, negated = 0;
    uint64_t keyed[3][256];  /* LEAD, START, TAIL tests by their needle's byte at the line's lead, start, last ink */
    int cheap_tests[SL_TESTS], ncheap = 0;
    memset(keyed, 0, sizeof keyed);
    Py_ssize_t *order_start = NULL, *mask_start = NULL;
    I64s *out = NULL;
    if (nt > SL_TESTS) {
        PyErr_SetString(PyExc_ValueError, "source_lines: too many tests");
        goto done;
    }
    for (Py_ssize_t j = 0; j < nt; j++) {
        PyObject *t = PyTuple_GET_ITEM(tests, j);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 || !PyBytes_Check(PyTuple_GET_ITEM(t, 1))) {
            PyErr_SetString(PyExc_TypeError, "source_lines: a test is a (mode, bytes) tuple");
            goto done;
        }
        long mode = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
        if (mode == -1 && PyErr_Occurred()) goto done;
        l.modes[j] = (int)mode;
        l.needles[j] = PyBytes_AS_STRING(PyTuple_GET_ITEM(t, 1));
        l.lens[j] = PyBytes_GET_SIZE(PyTuple_GET_ITEM(t, 1));
        l.next[j] = 0;
        l.found[j] = 0;
        if ((mode & ~SL_NOT) > SL_FIRST || mode < 0 || mode > (SL_FIRST | SL_NOT)
            || l.lens[j] == 0) {
            PyErr_SetString(PyExc_ValueError, "source_lines: unknown test");
            goto done;
        }
    }
    for (Py_ssize_t g = 0; g < ng; g++) {
        PyObject *group = PyTuple_GET_ITEM(clauses, g);
        if (!PyTuple_Check(group)) {
            PyErr_SetString(PyExc_TypeError, "source_lines: clauses are tuples of masks");
            goto done;
        }
        nm += PyTuple_GET_SIZE(group);
    }
    mask_start = PyMem_Calloc((size_t)ng + 1, sizeof(Py_ssize_t));
    order_start = PyMem_Calloc((size_t)nm + 1, sizeof(Py_ssize_t));
    order = PyMem_Calloc((size_t)nm * SL_TESTS + 1, sizeof(int));
    out = PyMem_Calloc((size_t)ng + 1, sizeof(I64s));
    masks = PyMem_Calloc((size_t)nm + 1, sizeof(uint64_t));
    if (!mask_start || !order_start || !order || !out || !masks) {
        PyErr_NoMemory();
        goto done;
    }
    nm = 0;
    for (Py_ssize_t g = 0; g < ng; g++) {
        PyObject *group = PyTuple_GET_ITEM(clauses, g);
        mask_start[g] = nm;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(group); k++) {
            unsigned long long m = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(group, k));
            if (m == (unsigned long long)-1 && PyErr_Occurred()) goto done;
            if (nt < 64 && (m >> nt)) {
                PyErr_SetString(PyExc_ValueError, "source_lines: a mask names a test not given");
                goto done;
            }
            masks[nm] = (uint64_t)m;
            order_start[nm++] = ni;
            for (int j = 0; j < nt; j++)
                if ((m >> j & 1) && (l.modes[j] & ~SL_NOT) == SL_WORD) order[ni++] = j;  /* the others: at once */
        }
    }
    mask_start[ng] = nm;
    order_start[nm] = ni;
    for (int j = 0; j < nt; j++) {
        int kind = l.modes[j] & ~SL_NOT;
        if (kind == SL_WORD) continue;
        cheap |= (uint64_t)1 << j;
        if (l.modes[j] & SL_NOT) negated |= (uint64_t)1 << j;
        if (kind == SL_FIRST) cheap_tests[ncheap++] = j;
        else {  /* found by the needle's byte at the line's lead, start or last ink */
            unsigned char key = (unsigned char)l.needles[j][kind == SL_TAIL ? l.lens[j] - 1 : 0];
            keyed[kind == SL_LEAD ? 0 : kind == SL_START ? 1 : 2][key] |= (uint64_t)1 << j;
        }
    }
    const unsigned char *raw = view.buf;
    Py_ssize_t n = view.len, pos = 0, index = 0, seen[256] = {0};
    for (Py_ssize_t i = 0; i < n && i < SL_WINDOW; i++) seen[raw[i]]++;
    for (int j = 0; j < nt; j++) {
        l.rare[j] = 0;
        for (Py_ssize_t i = 1; i < l.lens[j]; i++)
            if (seen[(unsigned char)l.needles[j][i]] < seen[(unsigned char)l.needles[j][l.rare[j]]]) l.rare[j] = i;
    }
    l.raw = raw;
    l.n = n;
    while (pos < n) {
        const unsigned char *nl = memchr(raw + pos, '\n', (size_t)(n - pos));
        Py_ssize_t end = nl ? nl - raw : n, e = end, p = pos;
        if (e > pos && raw[e - 1] == '\r') e--;
        int64_t number = index + 1;
        if (numbered) {
            Py_ssize_t at = number_prefix(raw, pos, e, &number);
            if (at >= 0) p = at;
            else number = index + 1;
        }
        index++;
        pos = nl ? end + 1 : n;
        if (e - p > max_len) continue;
        Py_ssize_t lead = p, trim = e;
        while (lead < e && is_space(raw[lead])) lead++;
        while (trim > p && is_space(raw[trim - 1])) trim--;
        l.p = p;
        l.e = e;
        l.lead = lead;
        l.trim = trim;
        uint64_t bits, known = cheap;
        int made = 0;
        int64_t record[SL_FIELDS];
        bits = negated;  /* a NOT test holds but where its test is found to hold */
        for (int c = 0; c < ncheap; c++) {  /* FIRST tests */
            int j = cheap_tests[c];
            if (source_test(&l, j)) bits |= (uint64_t)1 << j;
            else bits &= ~((uint64_t)1 << j);
        }
        for (int kind = 0; kind < 3; kind++) {  /* LEAD, START, TAIL: the tests whose needle has the byte there */
            Py_ssize_t at = kind == 0 ? lead : kind == 1 ? p : trim - 1;
            if (at < p || at >= e) continue;
            for (uint64_t m = keyed[kind][raw[at]]; m; m &= m - 1) {
                int j = __builtin_ctzll(m);
                if (source_test(&l, j)) bits |= (uint64_t)1 << j;
                else bits &= ~((uint64_t)1 << j);
            }
        }
        for (Py_ssize_t g = 0; g < ng; g++) {
            int take = 0;
            for (Py_ssize_t k = mask_start[g]; k < mask_start[g + 1] && !take; k++) {
                uint64_t m = masks[k] & cheap;
                if ((bits & m) != m) continue;
                take = 1;
                for (Py_ssize_t o = order_start[k]; o < order_start[k + 1]; o++) {
                    int j = order[o];
                    if (!(known >> j & 1)) {
                        known |= (uint64_t)1 << j;
                        if (source_test(&l, j)) bits |= (uint64_t)1 << j;
                    }
                    if (!(bits >> j & 1)) {
                        take = 0;
                        break;
                    }
                }
            }
            if (!take) continue;
            if (!made) {
                for (int j = 0; j < nt; j++)
                    if (!(known >> j & 1) && source_test(&l, j)) bits |= (uint64_t)1 << j;
                Py_ssize_t q = p, tabs = 0;
                while (q < trim && (raw[q] == ' ' || raw[q] == '\t')) tabs += raw[q++] == '\t';
                record[0] = number;
                record[1] = p;
                record[2] = e;
                record[3] = trim;
                record[4] = (q - p) + 3 * tabs;
                record[5] = (int64_t)bits;
                made = 1;
            }
            for (int f = 0; f < SL_FIELDS; f++)
                if (i64s_push(&out[g], record[f]) < 0) goto done;
        }
    }
    {
        PyObject *groups = PyTuple_New(ng);
        if (!groups) goto done;
        for (Py_ssize_t g = 0; g < ng; g++) {
            PyObject *b = int64_bytes(out[g].v, out[g].n);
            if (!b) {
                Py_DECREF(groups);
                goto done;
            }
            PyTuple_SET_ITEM(groups, g, b);
        }
        result = Py_BuildValue("(nN)", index, groups);
    }
done:
    if (out)
        for (Py_ssize_t g = 0; g < ng; g++) scratch_free(out[g].v, (size_t)out[g].cap * sizeof(int64_t));
    PyMem_Free(out);
    PyMem_Free(order);
    PyMem_Free(masks);
    PyMem_Free(order_start);
    PyMem_Free(mask_start);
    PyBuffer_Release(&view);
    return result;
}

static inline int64_t item_at(const Py_buffer *b, Py_ssize_t i) {  /* an array('I') or array('q') item */
    return b->itemsize == 8 ? ((const int64_t *)b->buf)[i] : (int64_t)((const uint32_t *)b->buf)[i];
}

static int index_buffer(PyObject *obj, Py_buffer *b, const char *what) {  /* uint32 or int64 items */
    if (PyObject_GetBuffer(obj, b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=') f++;
    if (!((b->itemsize == 4 && (*f == 'I' || *f == 'L')) || (b->itemsize == 8 && (*f == 'q' || *f == 'l')))) {
        PyErr_Format(PyExc_TypeError, "%s: uint32 or int64 items expected", what);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static PyObject *diag_codes(PyObject *self, PyObject *args) {
    PyObject *key_o, *rank_o;
    Py_buffer key, rank, plain, group_of;
    Py_ssize_t examples;
    if (!PyArg_ParseTuple(args, "OOy*y*n", &key_o, &rank_o, &plain, &group_of, &examples)) return NULL;
    PyObject *out = NULL;
    int got_key = index_buffer(key_o, &key, "diag_codes") == 0;
    int got_rank = got_key && index_buffer(rank_o, &rank, "diag_codes") == 0;
    if (got_rank) {
        Py_ssize_t n = key.len / key.itemsize;
        if (rank.len / rank.itemsize != n || plain.len != n) {
            PyErr_SetString(PyExc_ValueError, "diag_codes: key, rank and plain differ in length");
        } else if ((out = PyByteArray_FromStringAndSize(NULL, n))) {
            unsigned char *o = (unsigned char *)PyByteArray_AS_STRING(out);
            const unsigned char *pl = plain.buf, *go = group_of.buf;
            for (Py_ssize_t j = 0; j < n; j++) {
                int64_t k = item_at(&key, j), r = item_at(&rank, j);
                unsigned char g = (k >= 0 && k < group_of.len) ? go[k] : 0;
                if (g && r > examples) o[j] = g;
                else if (g && r == examples) o[j] = 255;
                else o[j] = pl[j] ? 0 : 255;
            }
        }
    }
    if (got_rank) PyBuffer_Release(&rank);
    if (got_key) PyBuffer_Release(&key);
    PyBuffer_Release(&plain);
    PyBuffer_Release(&group_of);
    return out;
}

static PyObject *diag_runs(PyObject *self, PyObject *args) {
    Py_buffer codes, b[4];
    PyObject *objs[4];
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*nnOOOO", &codes, &first, &stop, &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    int got = 0;
    PyObject *result = NULL, *run_codes = NULL, *firsts = NULL, *starts = NULL, *ends = NULL;
    for (; got < 4; got++)
        if (index_buffer(objs[got], &b[got], "diag_runs") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (first < 0 || stop > n || stop > codes.len || first >= stop || b[1].len / b[1].itemsize != n) {
        PyErr_SetString(PyExc_ValueError, "diag_runs: bad range or columns");
        goto done;
    }
    const unsigned char *c = codes.buf;
    Py_ssize_t k = 1;
    for (Py_ssize_t j = first + 1; j < stop; j++) k += c[j] != c[j - 1];
    run_codes = PyBytes_FromStringAndSize(NULL, k);
    firsts = PyBytes_FromStringAndSize(NULL, k * 8);
    starts = PyBytes_FromStringAndSize(NULL, k * 8);
    ends = PyBytes_FromStringAndSize(NULL, k * 8);
    if (!run_codes || !firsts || !starts || !ends) goto done;
    unsigned char *rc = (unsigned char *)PyBytes_AS_STRING(run_codes);
    int64_t *fs = (int64_t *)PyBytes_AS_STRING(firsts), *st = (int64_t *)PyBytes_AS_STRING(starts);
    int64_t *en = (int64_t *)PyBytes_AS_STRING(ends);
    Py_ssize_t lines = b[2].len / b[2].itemsize, r = 0;
    for (Py_ssize_t j = first; j < stop; j++) {
        if (j == first || c[j] != c[j - 1]) {
            int64_t head = item_at(&b[0], j);
            if (head < 0 || head >= lines) goto bad;
            rc[r] = c[j];
            fs[r] = j;
            st[r] = item_at(&b[2], head);
            r++;
        }
        if (j + 1 == stop || c[j + 1] != c[j]) {
            int64_t last = item_at(&b[1], j);
            if (last < 0 || last >= b[3].len / b[3].itemsize) goto bad;
            en[r - 1] = item_at(&b[3], last);
        }
    }
    result = PyTuple_Pack(4, run_codes, firsts, starts, ends);
    goto done;
bad:
    PyErr_SetString(PyExc_ValueError, "diag_runs: a line index out of range");
done:
    Py_XDECREF(run_codes);
    Py_XDECREF(firsts);
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&codes);
    return result;
}


static PyObject *diag_ranks(PyObject *self, PyObject *args) {
    PyObject *key_o;
    Py_ssize_t nkeys;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "On", &key_o, &nkeys)) return NULL;
    if (index_buffer(key_o, &key, "diag_ranks") < 0) return NULL;
    Py_ssize_t n = key.len / key.itemsize;
    PyObject *rank = NULL, *order = NULL, *firsts = NULL, *counts = NULL, *result = NULL;
    Py_ssize_t *count = PyMem_Calloc((size_t)(nkeys > 0 ? nkeys : 1), sizeof(Py_ssize_t));
    Py_ssize_t *at = PyMem_Calloc((size_t)(nkeys > 0 ? nkeys : 1), sizeof(Py_ssize_t));
    rank = PyBytes_FromStringAndSize(NULL, n * 4);
    order = PyBytes_FromStringAndSize(NULL, n * 4);
    if (!count || !at || !rank || !order) {
        if (!count || !at) PyErr_NoMemory();
        goto done;
    }
    uint32_t *rk = (uint32_t *)PyBytes_AS_STRING(rank), *od = (uint32_t *)PyBytes_AS_STRING(order);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t j = 0; j < n; j++) {  /* each one's rank among its key's; the keys in order of first use */
        int64_t k = item_at(&key, j);
        if (k < 0 || k >= nkeys) {
            PyErr_SetString(PyExc_ValueError, "diag_ranks: a key past nkeys");
            goto done;
        }
        if (!count[k]) distinct++;
        rk[j] = (uint32_t)++count[k];
    }
    firsts = PyBytes_FromStringAndSize(NULL, distinct * 4);
    counts = PyBytes_FromStringAndSize(NULL, distinct * 4);
    if (!firsts || !counts) goto done;
    uint32_t *fs = (uint32_t *)PyBytes_AS_STRING(firsts), *cs = (uint32_t *)PyBytes_AS_STRING(counts);
    Py_ssize_t d = 0, pos = 0;
    for (Py_ssize_t j = 0; j < n; j++) {  /* where each key's indexes start in order */
        int64_t k = item_at(&key, j);
        if (rk[j] == 1) {
            fs[d] = (uint32_t)k;
            cs[d++] = (uint32_t)count[k];
            at[k] = pos;
            pos += count[k];
        }
        od[at[k]++] = (uint32_t)j;
    }
    result = PyTuple_Pack(4, rank, order, firsts, counts);
done:
    Py_XDECREF(rank);
    Py_XDECREF(order);
    Py_XDECREF(firsts);
    Py_XDECREF(counts);
    PyMem_Free(count);
    PyMem_Free(at);
    PyBuffer_Release(&key);
    return result;
}


static PyObject *diag_columns(PyObject *self, PyObject *args) {
    Py_buffer rest_ids, path_ids, at, flags, keys, sevs, skips, gnus, path_of;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*", &rest_ids, &path_ids, &at, &flags, &keys, &sevs, &skips, &gnus,
                          &path_of))
        return NULL;
    Py_ssize_t n = flags.len, nrests = gnus.len, npaths = path_of.len / 4;
    PyObject *result = NULL, *key = NULL, *sev = NULL, *path = NULL, *style = NULL, *message = NULL;
    if (rest_ids.len != n * 4 || path_ids.len != n * 4 || at.len != n * 4 || keys.len != nrests * 4
        || sevs.len != nrests * 4 || skips.len != nrests * 4) {
        PyErr_SetString(PyExc_ValueError, "diag_columns: columns of different lengths");
        goto done;
    }
    key = PyBytes_FromStringAndSize(NULL, n * 4);
    sev = PyBytes_FromStringAndSize(NULL, n * 4);
    path = PyBytes_FromStringAndSize(NULL, n * 4);
    style = PyBytes_FromStringAndSize(NULL, n);
    message = PyBytes_FromStringAndSize(NULL, n * 4);
    if (!key || !sev || !path || !style || !message) goto done;
    const int32_t *ri = rest_ids.buf, *pi = path_ids.buf, *a = at.buf, *sk = skips.buf;
    const uint32_t *ks = keys.buf, *ss = sevs.buf, *po = path_of.buf;
    const unsigned char *fl = flags.buf, *gn = gnus.buf;
    uint32_t *ko = (uint32_t *)PyBytes_AS_STRING(key), *so = (uint32_t *)PyBytes_AS_STRING(sev);
    uint32_t *pa = (uint32_t *)PyBytes_AS_STRING(path);
    int32_t *mo = (int32_t *)PyBytes_AS_STRING(message);
    unsigned char *st = (unsigned char *)PyBytes_AS_STRING(style);
    for (Py_ssize_t j = 0; j < n; j++) {
        int32_t r = ri[j], p = pi[j];
        if (r < 0 || r >= nrests || p < 0 || p >= npaths) {
            PyErr_SetString(PyExc_ValueError, "diag_columns: an id past its table");
            goto done;
        }
        ko[j] = ks[r];
        so[j] = ss[r];
        pa[j] = po[p];
        mo[j] = a[j] + sk[r];
        st[j] = (fl[j] & 2) ? 2 : gn[r] ? 1 : 0;  /* PYRIGHT, GNU, PLAIN as numbered in diagnostics.py */
    }
    result = PyTuple_Pack(5, key, sev, path, style, message);
done:
    Py_XDECREF(key);
    Py_XDECREF(sev);
    Py_XDECREF(path);
    Py_XDECREF(style);
    Py_XDECREF(message);
    PyBuffer_Release(&rest_ids);
    PyBuffer_Release(&path_ids);
    PyBuffer_Release(&at);
    PyBuffer_Release(&flags);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&sevs);
    PyBuffer_Release(&skips);
    PyBuffer_Release(&gnus);
    PyBuffer_Release(&path_of);
    return result;
}


/* ---- diagnostics: the lines of a detailed format (rustc, ruff's full) read a run at a time ----------- */

static int diag_blank_byte(unsigned char c) { return c == ' ' || c == '\t'; }
static int diag_ws_byte(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static int diag_has(const unsigned char *s, Py_ssize_t len, const char *needle) {
    Py_ssize_t k = (Py_ssize_t)strlen(needle);
    for (Py_ssize_t p = 0; p + k <= len; p++)
        if (s[p] == (unsigned char)needle[0] && memcmp(s + p, needle, (size_t)k) == 0) return 1;
    return 0;
}

/* what tsc's head (TSC_RE: "(1,2): error TS1: ") cannot lack */
static int diag_tsc(const unsigned char *s, Py_ssize_t len) {
    return diag_has(s, len, "): error") || diag_has(s, len, "): warning") || diag_has(s, len, "): message");
}

/* what another form of diagnostics.py's _Parser reads in a line that is not indented may hold (tsc's head, gcc's
 * "file: In function") */
static int diag_odd(const unsigned char *s, Py_ssize_t len) {
    return diag_tsc(s, len) || diag_has(s, len, ": In ") || diag_has(s, len, ": At top level");
}

/* the line [s, len) is followed by one whose text starts with optional whitespace then "-->" */
static int diag_arrow_at(const unsigned char *s, Py_ssize_t len) {
    Py_ssize_t p = 0;
    while (p < len && diag_ws_byte(s[p])) p++;
    return p + 3 <= len && s[p] == '-' && s[p + 1] == '-' && s[p + 2] == '>';
}

static int diag_rust_first(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c && strchr("fewnihrc", c) != NULL); }

/* a line's class (diag_twins.diag_lines_py): 1 blank, 2 a snippet or caret line, 3 a help/note line, 4 maybe a
 * rustc head, 5 an indented "= " line, 0 any other (diag_lines adds 0x80 to a line holding 8 spaces in a row) */
static unsigned char diag_line_class(const unsigned char *s, Py_ssize_t len, const unsigned char *next, Py_ssize_t next_len,
                                     int has_next) {
    Py_ssize_t p = 0;
    while (p < len && diag_blank_byte(s[p])) p++;
    if (p == len) return 1;
    if (p > 0 && s[p] == '=' && p + 1 < len && s[p + 1] == ' ') return 5;  /* rustc's "   = help: ..." */
    if (p > 0 || is_digit(s[0])) {
        if (p > 0 && !is_digit(s[p]) && s[p] != '|' && s[p] != '+' && s[p] != '-') return 0;
        if (is_digit(s[p])) {
            while (p < len && is_digit(s[p])) p++;
            if (p >= len || s[p] != ' ') return 0;
            while (p < len && s[p] == ' ') p++;
        }
        if (p >= len || (s[p] != '|' && s[p] != '+' && s[p] != '-')) return 0;
        if (p + 1 < len && s[p + 1] != ' ') return 0;
        if (!diag_blank_byte(s[0]) && diag_odd(s, len)) return 0;
        return 2;
    }
    if (len > 6 && (memcmp(s, "help: ", 6) == 0 || memcmp(s, "note: ", 6) == 0)) {
        if (diag_ws_byte(s[6]) || diag_odd(s, len)) return 0;
        if (s[0] == 'n' && has_next && diag_arrow_at(next, next_len)) return 0;
        return 3;
    }
    if (diag_rust_first(s[0]) && !diag_tsc(s, len) && has_next && diag_arrow_at(next, next_len)) return 4;
    return 0;
}

static PyObject *diag_lines(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len;
    Py_ssize_t n = 0;
    for (const unsigned char *s = raw; s < end; n++) {
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        s = nl ? nl + 1 : end;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (out) {
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
        const unsigned char *s = raw;
        const unsigned char *be = s < end ? memchr(s, '\n', (size_t)(end - s)) : NULL;
        if (!be) be = end;
        for (Py_ssize_t i = 0; i < n; i++) {
            const unsigned char *ns = be < end ? be + 1 : end, *nbe = NULL;
            int has_next = i + 1 < n;
            if (has_next) {
                nbe = memchr(ns, '\n', (size_t)(end - ns));
                if (!nbe) nbe = end;
            }
            o[i] = diag_line_class(s, be - s, ns, has_next ? nbe - ns : 0, has_next);
            for (Py_ssize_t p = 0, spaces = 0; p < be - s; p++) {  /* PAD_BIT: 8 spaces in a row */
                spaces = s[p] == ' ' ? spaces + 1 : 0;
                if (spaces == 8) {
                    o[i] |= 0x80;
                    break;
                }
            }
            s = ns;
            be = nbe;
        }
    }
    PyBuffer_Release(&view);
    return out;
}

/* (run_codes, run_starts, run_ends): the runs of equal codes among lines first..stop-1 (diag_twins.diag_line_runs_py) */
static PyObject *diag_line_runs(PyObject *self, PyObject *args) {
    Py_buffer codes, b[2];
    PyObject *objs[2];
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*nnOO", &codes, &first, &stop, &objs[0], &objs[1])) return NULL;
    int got = 0;
    PyObject *result = NULL, *run_codes = NULL, *starts = NULL, *ends = NULL;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_line_runs") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (first < 0 || first >= stop || stop > n || stop > codes.len || b[1].len / b[1].itemsize != n) {
        PyErr_SetString(PyExc_ValueError, "diag_line_runs: bad range or columns");
        goto done;
    }
    const unsigned char *c = codes.buf;
    Py_ssize_t k = 1;
    for (Py_ssize_t j = first + 1; j < stop; j++) k += c[j] != c[j - 1];
    run_codes = PyBytes_FromStringAndSize(NULL, k);
    starts = PyBytes_FromStringAndSize(NULL, k * 8);
    ends = PyBytes_FromStringAndSize(NULL, k * 8);
    if (!run_codes || !starts || !ends) goto done;
    unsigned char *rc = (unsigned char *)PyBytes_AS_STRING(run_codes);
    int64_t *st = (int64_t *)PyBytes_AS_STRING(starts), *en = (int64_t *)PyBytes_AS_STRING(ends);
    Py_ssize_t r = 0;
    for (Py_ssize_t j = first; j < stop; j++) {
        if (j == first || c[j] != c[j - 1]) {
            rc[r] = c[j];
            st[r++] = item_at(&b[0], j);
        }
        if (j + 1 == stop || c[j + 1] != c[j]) en[r - 1] = item_at(&b[1], j);
    }
    result = PyTuple_Pack(3, run_codes, starts, ends);
done:
    Py_XDECREF(run_codes);
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&codes);
    return result;
}

/* lines[heads[j]..lasts[j]] = codes[j] for each diagnostic whose code is from low to high (diag_twins.diag_fill_py) */
static PyObject *diag_fill(PyObject *self, PyObject *args) {
    Py_buffer lines, codes, b[2];
    PyObject *objs[2];
    Py_ssize_t low, high;
    if (!PyArg_ParseTuple(args, "w*y*OOnn", &lines, &codes, &objs[0], &objs[1], &low, &high)) return NULL;
    int got = 0, ok = 0;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_fill") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (codes.len != n || b[1].len / b[1].itemsize != n) {
        PyErr_SetString(PyExc_ValueError, "diag_fill: columns of different lengths");
        goto done;
    }
    unsigned char *out = lines.buf;
    const unsigned char *c = codes.buf;
    for (Py_ssize_t j = 0; j < n; j++) {
        if (c[j] < low || c[j] > high) continue;
        int64_t a = item_at(&b[0], j), z = item_at(&b[1], j);
        if (a < 0 || z < a || z >= lines.len) {
            PyErr_SetString(PyExc_ValueError, "diag_fill: a line index out of range");
            goto done;
        }
        memset(out + a, c[j], (size_t)(z - a + 1));
    }
    ok = 1;
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&lines);
    PyBuffer_Release(&codes);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}


/* uint32 offsets of each line's start, then the end (an input under 4 GiB; diag_twins.diag_offsets_py) */
static PyObject *diag_offsets(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *raw = view.buf, *end = raw + view.len;
    PyObject *out = NULL;
    if ((uint64_t)view.len >= ((uint64_t)1 << 32)) {
        PyErr_SetString(PyExc_ValueError, "diag_offsets: an input of 4 GiB or more");
        goto done;
    }
    Py_ssize_t n = 1;
    for (const unsigned char *s = raw; s < end; n++) {
        const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
        s = nl ? nl + 1 : end;
    }
    if ((out = PyBytes_FromStringAndSize(NULL, n * 4))) {
        uint32_t *o = (uint32_t *)PyBytes_AS_STRING(out);
        Py_ssize_t i = 0;
        o[i++] = 0;
        for (const unsigned char *s = raw; s < end;) {
            const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
            s = nl ? nl + 1 : end;
            o[i++] = (uint32_t)(s - raw);
        }
    }
done:
    PyBuffer_Release(&view);
    return out;
}

/* ---- diagnostics: eslint stylish entries read a run at a time, padding runs of a span at once ---- */

static inline int st_ws(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }  /* bytes \s */
static inline int st_rule(unsigned char c) {  /* [\w/@.-] of a bytes pattern */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '@' ||
           c == '.' || c == '-';
}

/* One line raw[s:e] read as STYLISH_RE reads it: 0 for none; else 1 with the severity (0 error, 1 warning),
   the message's span and the rule's (rs = -1: none). */
static int stylish_line(const unsigned char *raw, Py_ssize_t s, Py_ssize_t e, int *sev, Py_ssize_t *ms, Py_ssize_t *me,
                        Py_ssize_t *rs, Py_ssize_t *re_) {
    Py_ssize_t p = s, q;
    while (p < e && st_ws(raw[p])) p++;
    if (p == s) return 0;
    for (q = p; p < e && raw[p] >= '0' && raw[p] <= '9'; p++) {}
    if (p == q || p >= e || raw[p] != ':') return 0;
    for (q = ++p; p < e && raw[p] >= '0' && raw[p] <= '9'; p++) {}
    if (p == q) return 0;
    for (q = p; p < e && st_ws(raw[p]); p++) {}
    if (p == q) return 0;
    if (e - p >= 5 && memcmp(raw + p, "error", 5) == 0) {
        *sev = 0;
        p += 5;
    } else if (e - p >= 7 && memcmp(raw + p, "warning", 7) == 0) {
        *sev = 1;
        p += 7;
    } else {
        return 0;
    }
    for (q = p; p < e && st_ws(raw[p]); p++) {}
    if (p == q) return 0;
    Py_ssize_t m0 = p, t = e;
    while (t > m0 && st_ws(raw[t - 1])) t--;
    *ms = m0;
    *me = t;
    *rs = *re_ = -1;
    Py_ssize_t we = t;
    if (we > m0 && raw[we - 1] == ')') we--;
    Py_ssize_t ws = we;
    while (ws > m0 && st_rule(raw[ws - 1])) ws--;
    if (ws < we) {
        Py_ssize_t r = ws, w;
        if (r > m0 && raw[r - 1] == '(') r--;
        for (w = r; w > m0 && st_ws(raw[w - 1]); w--) {}
        if (r - w >= 2) {
            *me = w;
            *rs = ws;
            *re_ = we;
        }
    }
    return 1;
}

/* (stop, combo_ids, message_ids): lines first.. (while classes[k] is 0) read as eslint stylish entries
   (diag_twins.diag_stylish_py); each entry's severity and rule (or message) numbered in combos, its message
   in messages (new texts added, numbered in order) */
static PyObject *diag_stylish(PyObject *self, PyObject *args) {
    Py_buffer raw, classes, b[2];
    PyObject *objs[2], *combos, *messages;
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*OOy*nnO!O!", &raw, &objs[0], &objs[1], &classes, &first, &stop, &PyDict_Type, &combos,
                          &PyDict_Type, &messages))
        return NULL;
    int got = 0;
    PyObject *result = NULL, *cids = NULL, *mids = NULL;
    char *key = NULL;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_stylish") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (b[1].len / b[1].itemsize != n || classes.len < n || first < 0 || stop > n || first > stop) {
        PyErr_SetString(PyExc_ValueError, "diag_stylish: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *cl = classes.buf;
    Py_ssize_t k = first, cap = 0;
    int32_t *ci = NULL, *mi = NULL;
    cids = PyBytes_FromStringAndSize(NULL, 0);
    mids = PyBytes_FromStringAndSize(NULL, 0);
    if (!cids || !mids) goto done;
    for (; k < stop && !cl[k]; k++) {
        int64_t s = item_at(&b[0], k), e = item_at(&b[1], k);
        if (s < 0 || e < s || e > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_stylish: a line out of range");
            goto done;
        }
        if (e > s && r[e - 1] == '\n') e--;
        int sev;
        Py_ssize_t ms, me, rs, re_;
        if (!stylish_line(r, s, e, &sev, &ms, &me, &rs, &re_)) break;
        Py_ssize_t j = k - first;
        if (j >= cap) {
            cap = cap ? cap * 2 : 64;
            if (_PyBytes_Resize(&cids, cap * 4) < 0 || _PyBytes_Resize(&mids, cap * 4) < 0) goto done;
            ci = (int32_t *)PyBytes_AS_STRING(cids);
            mi = (int32_t *)PyBytes_AS_STRING(mids);
        }
        PyObject *msg = PyBytes_FromStringAndSize((const char *)r + ms, me - ms);
        if (!msg) goto done;
        PyObject *id = PyDict_GetItemWithError(messages, msg);
        if (!id) {
            if (PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyDict_Size(messages))) || PyDict_SetItem(messages, msg, id) < 0) {
                Py_XDECREF(id);
                Py_DECREF(msg);
                goto done;
            }
            Py_DECREF(id);
        }
        mi[j] = (int32_t)PyLong_AsLong(id);
        Py_ssize_t a = rs >= 0 ? rs : ms, z = rs >= 0 ? re_ : me;
        PyObject *ck = PyBytes_FromStringAndSize(NULL, 2 + (z - a));
        if (!ck) {
            Py_DECREF(msg);
            goto done;
        }
        key = PyBytes_AS_STRING(ck);
        key[0] = sev ? 'w' : 'e';
        key[1] = rs >= 0 ? 1 : 0;
        memcpy(key + 2, r + a, (size_t)(z - a));
        key = NULL;
        Py_DECREF(msg);
        id = PyDict_GetItemWithError(combos, ck);
        if (!id) {
            if (PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyDict_Size(combos))) || PyDict_SetItem(combos, ck, id) < 0) {
                Py_XDECREF(id);
                Py_DECREF(ck);
                goto done;
            }
            Py_DECREF(id);
        }
        ci[j] = (int32_t)PyLong_AsLong(id);
        Py_DECREF(ck);
    }
    if (_PyBytes_Resize(&cids, (k - first) * 4) < 0 || _PyBytes_Resize(&mids, (k - first) * 4) < 0) goto done;
    result = Py_BuildValue("nOO", k, cids, mids);
done:
    Py_XDECREF(cids);
    Py_XDECREF(mids);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&classes);
    return result;
}

/* The first run of spaces in r[p:end): [*a, *z), and whether it pads (1) or not (0): it follows a character
 * that is no space and no newline (r[a - 1]), is `least` long at least, and comes before a character that
 * ends no line. -1 when r[p:end) holds no space. (diag_pads and diag_shown.) */
static int pad_run(const unsigned char *r, Py_ssize_t p, Py_ssize_t end, Py_ssize_t least, Py_ssize_t *a, Py_ssize_t *z) {
    const unsigned char *sp = memchr(r + p, ' ', (size_t)(end - p));
    if (!sp) return -1;
    Py_ssize_t x = sp - r, y = x;
    while (y < end && r[y] == ' ') y++;
    *a = x;
    *z = y;
    return x > 0 && r[x - 1] != ' ' && r[x - 1] != '\n' && y - x >= least && y < end && r[y] != '\r' && r[y] != '\n';
}

/* int64 (from, to) of each run of at least `least` spaces in raw[start:end] after a byte other than a space or
   a newline and before one other than a space, \r or \n, `keep` of its spaces left out of it
   (diag_twins.diag_pads_py: ODD_RE's padding) */
static PyObject *diag_pads(PyObject *self, PyObject *args) {
    Py_buffer raw;
    Py_ssize_t start, end, least, keep;
    if (!PyArg_ParseTuple(args, "y*nnnn", &raw, &start, &end, &least, &keep)) return NULL;
    PyObject *out = NULL;
    if (start < 0 || end > raw.len || start > end || least < 1 || keep < 0 || keep > least) {
        PyErr_SetString(PyExc_ValueError, "diag_pads: bad range");
        goto done;
    }
    const unsigned char *r = raw.buf;
    Py_ssize_t cap = 16, m = 0;
    if (!(out = PyBytes_FromStringAndSize(NULL, cap * 16))) goto done;
    Py_ssize_t p = start, a, z;
    int pad;
    while (p < end && (pad = pad_run(r, p, end, least, &a, &z)) >= 0) {
        if (pad) {
            if (m == cap) {
                cap *= 2;
                if (_PyBytes_Resize(&out, cap * 16) < 0) goto done;
            }
            int64_t *o = (int64_t *)PyBytes_AS_STRING(out);
            o[2 * m] = a + keep;
            o[2 * m + 1] = z;
            m++;
        }
        p = z;
    }
    _PyBytes_Resize(&out, m * 16);
done:
    PyBuffer_Release(&raw);
    return out;
}

/* uint32 each diagnostic's bytes shown: raw[starts[heads[j]]:ends[lasts[j]]] less each run of spaces diag_pads finds
   in it (least, keep) (diag_twins.diag_shown_py: diagnostics.py's _verbatim of a padded input, each at once) */
static PyObject *diag_shown(PyObject *self, PyObject *args) {
    Py_buffer raw, starts, ends, heads, lasts;
    PyObject *starts_o, *ends_o, *heads_o, *lasts_o, *out = NULL;
    Py_ssize_t least, keep;
    if (!PyArg_ParseTuple(args, "y*OOOOnn", &raw, &starts_o, &ends_o, &heads_o, &lasts_o, &least, &keep)) return NULL;
    int got = 0;
    Py_buffer *b[4] = {&starts, &ends, &heads, &lasts};
    PyObject *o[4] = {starts_o, ends_o, heads_o, lasts_o};
    for (; got < 4; got++)
        if (index_buffer(o[got], b[got], "diag_shown") < 0) goto done;
    Py_ssize_t nlines = starts.len / starts.itemsize, n = heads.len / heads.itemsize;
    if (ends.len / ends.itemsize != nlines || lasts.len / lasts.itemsize != n || least < 1 || keep < 0 || keep > least) {
        PyErr_SetString(PyExc_ValueError, "diag_shown: bad columns or range");
        goto done;
    }
    if (!(out = PyBytes_FromStringAndSize(NULL, n * 4))) goto done;
    uint32_t *sizes = (uint32_t *)PyBytes_AS_STRING(out);
    const unsigned char *r = raw.buf;
    for (Py_ssize_t j = 0; j < n; j++) {
        int64_t h = item_at(&heads, j), l = item_at(&lasts, j);
        if (h < 0 || h >= nlines || l < 0 || l >= nlines) {
            PyErr_SetString(PyExc_ValueError, "diag_shown: a line out of range");
            Py_CLEAR(out);
            goto done;
        }
        Py_ssize_t start = (Py_ssize_t)item_at(&starts, (Py_ssize_t)h), end = (Py_ssize_t)item_at(&ends, (Py_ssize_t)l);
        if (start < 0 || end > raw.len || start > end) {
            PyErr_SetString(PyExc_ValueError, "diag_shown: a span out of range");
            Py_CLEAR(out);
            goto done;
        }
        Py_ssize_t size = end - start, p = size >= least ? start : end;  /* (no run longer than the span) */
        Py_ssize_t a, z;
        int pad;
        while (p < end && (pad = pad_run(r, p, end, least, &a, &z)) >= 0) {  /* diag_pads over raw[start:end] */
            if (pad) size -= z - a - keep;
            p = z;
        }
        sizes[j] = (uint32_t)size;
    }
done:
    for (int x = 0; x < got; x++) PyBuffer_Release(b[x]);
    PyBuffer_Release(&raw);
    return out;
}

/* a piece appended to diag_line_pieces' columns: none when empty, joined to the last when both are of code 0 */
static int piece_push(I64s *codes, I64s *starts, I64s *ends, int64_t code, int64_t a, int64_t z) {
    if (a == z) return 0;
    if (code == 0 && codes->n && codes->v[codes->n - 1] == 0 && ends->v[ends->n - 1] == a) {
        ends->v[ends->n - 1] = z;
        return 0;
    }
    return i64s_push(codes, code) < 0 || i64s_push(starts, a) < 0 || i64s_push(ends, z) < 0 ? -1 : 0;
}

/* (piece_codes, piece_starts, piece_ends): the runs of equal codes among lines first..stop-1 as diag_line_runs
   gives them, a run of code `padded` cut at each run of spaces diag_pads finds in it (least, keep): code 0
   before, between and after them, code `pad` for each; no empty piece, the pieces of code 0 next to each
   other joined (diag_twins.diag_line_pieces_py) */
static PyObject *diag_line_pieces(PyObject *self, PyObject *args) {
    Py_buffer codes, raw, b[2];
    PyObject *objs[2];
    Py_ssize_t first, stop, least, keep;
    int padded, pad;
    if (!PyArg_ParseTuple(args, "y*nnOOy*iinn", &codes, &first, &stop, &objs[0], &objs[1], &raw, &padded, &pad, &least,
                          &keep))
        return NULL;
    int got = 0;
    PyObject *result = NULL, *out_codes = NULL, *out_starts = NULL, *out_ends = NULL;
    I64s pc = {0}, ps = {0}, pe = {0};
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_line_pieces") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (first < 0 || first >= stop || stop > n || stop > codes.len || b[1].len / b[1].itemsize != n || least < 1 ||
        keep < 0 || keep > least || padded < 0 || padded > 255 || pad < 0 || pad > 255) {
        PyErr_SetString(PyExc_ValueError, "diag_line_pieces: bad range, columns or codes");
        goto done;
    }
    const unsigned char *c = codes.buf, *r = raw.buf;
    for (Py_ssize_t j = first; j < stop;) {
        Py_ssize_t k = j + 1;
        while (k < stop && c[k] == c[j]) k++;
        int64_t a = item_at(&b[0], j), z = item_at(&b[1], k - 1);
        if (a < 0 || a > z || (c[j] == padded && z > raw.len)) {
            PyErr_SetString(PyExc_ValueError, "diag_line_pieces: a run out of range");
            goto done;
        }
        if (c[j] != padded) {
            if (piece_push(&pc, &ps, &pe, c[j], a, z) < 0) goto done;
            j = k;
            continue;
        }
        Py_ssize_t p = (Py_ssize_t)a, at = (Py_ssize_t)a;
        while (p < z) {  /* diag_pads over raw[a:z] */
            const unsigned char *sp = memchr(r + p, ' ', (size_t)(z - p));
            if (!sp) break;
            Py_ssize_t s = sp - r, e = s;
            while (e < z && r[e] == ' ') e++;
            if (s > 0 && r[s - 1] != ' ' && r[s - 1] != '\n' && e - s >= least && e < z && r[e] != '\r' && r[e] != '\n') {
                if (piece_push(&pc, &ps, &pe, 0, at, s + keep) < 0 || piece_push(&pc, &ps, &pe, pad, s + keep, e) < 0) goto done;
                at = e;
            }
            p = e;
        }
        if (piece_push(&pc, &ps, &pe, 0, at, z) < 0) goto done;
        j = k;
    }
    out_codes = PyBytes_FromStringAndSize(NULL, pc.n);
    out_starts = PyBytes_FromStringAndSize((const char *)ps.v, ps.n * (Py_ssize_t)sizeof(int64_t));
    out_ends = PyBytes_FromStringAndSize((const char *)pe.v, pe.n * (Py_ssize_t)sizeof(int64_t));
    if (!out_codes || !out_starts || !out_ends) goto done;
    unsigned char *oc = (unsigned char *)PyBytes_AS_STRING(out_codes);
    for (Py_ssize_t i = 0; i < pc.n; i++) oc[i] = (unsigned char)pc.v[i];
    result = PyTuple_Pack(3, out_codes, out_starts, out_ends);
done:
    Py_XDECREF(out_codes);
    Py_XDECREF(out_starts);
    Py_XDECREF(out_ends);
    scratch_free(pc.v, (size_t)pc.cap * sizeof(int64_t));
    scratch_free(ps.v, (size_t)ps.cap * sizeof(int64_t));
    scratch_free(pe.v, (size_t)pe.cap * sizeof(int64_t));
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&codes);
    return result;
}

/* the number of the bytes data[0:len] in dict `numbers` (each new text numbered as it is added) into *out; -1 on error */
static int dict_number(PyObject *numbers, const unsigned char *data, Py_ssize_t len, int32_t *out) {
    PyObject *text = PyBytes_FromStringAndSize((const char *)data, len);
    if (!text) return -1;
    PyObject *id = PyDict_GetItemWithError(numbers, text);
    if (id) {
        *out = (int32_t)PyLong_AsLong(id);
        Py_DECREF(text);
        return 0;
    }
    int bad = PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyDict_Size(numbers))) || PyDict_SetItem(numbers, text, id) < 0;
    if (!bad) *out = (int32_t)PyLong_AsLong(id);
    Py_XDECREF(id);
    Py_DECREF(text);
    return bad ? -1 : 0;
}

static Py_ssize_t digits_at(const unsigned char *r, Py_ssize_t p, Py_ssize_t e) {  /* past the digits from p */
    while (p < e && r[p] >= '0' && r[p] <= '9') p++;
    return p;
}

/* tsc's head in r[s:e] (diagnostics.py's TSC_RE: path(line,col): error TS2322: ): 1 with where the path ends
   (its "("), where the severity starts, where the code ends and where the message starts; else 0 */
static int tsc_line(const unsigned char *r, Py_ssize_t s, Py_ssize_t e, Py_ssize_t *open, Py_ssize_t *sev,
                    Py_ssize_t *code_end, Py_ssize_t *msg) {
    if (s >= e || (r[s] != 0 && strchr(" \t\n\r\f\v()", r[s]) != NULL)) return 0;
    const unsigned char *q = memchr(r + s, '(', (size_t)(e - s));
    if (!q || memchr(r + s, ')', (size_t)(q - (r + s)))) return 0;
    Py_ssize_t p = q - r, d = digits_at(r, p + 1, e);
    if (d == p + 1 || d >= e || r[d] != ',') return 0;
    Py_ssize_t d2 = digits_at(r, d + 1, e);
    if (d2 == d + 1 || d2 + 3 > e || memcmp(r + d2, "): ", 3) != 0) return 0;
    Py_ssize_t v = d2 + 3, w;
    if (e - v >= 6 && memcmp(r + v, "error ", 6) == 0) w = v + 6;
    else if (e - v >= 8 && (memcmp(r + v, "warning ", 8) == 0 || memcmp(r + v, "message ", 8) == 0)) w = v + 8;
    else return 0;
    if (e - w < 3 || r[w] != 'T' || r[w + 1] != 'S') return 0;
    Py_ssize_t c = digits_at(r, w + 2, e);
    if (c == w + 2 || c + 2 > e || r[c] != ':' || r[c + 1] != ' ') return 0;
    *open = p;
    *sev = v;
    *code_end = c;
    *msg = c + 2;
    return 1;
}

/* (stop, combo_ids, path_ids, locs, messages): the lines from first on (before stop, while classes is 0) that are
   tsc's heads (tsc_line), up to the first that is not (diag_twins.diag_tsc_heads_py); for each, int32: the number in
   `combos` of its severity, a space and its code (error TS2322), the number in `paths` of its path, where its
   location ends (its path, line and column) and where its message starts in the line */
static PyObject *diag_tsc_heads(PyObject *self, PyObject *args) {
    Py_buffer raw, classes, b[2];
    PyObject *objs[2], *combos, *paths;
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*OOy*nnO!O!", &raw, &objs[0], &objs[1], &classes, &first, &stop, &PyDict_Type, &combos,
                          &PyDict_Type, &paths))
        return NULL;
    int got = 0;
    PyObject *result = NULL, *cols[4] = {NULL, NULL, NULL, NULL};
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_tsc_heads") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (b[1].len / b[1].itemsize != n || classes.len < n || first < 0 || stop > n || first > stop) {
        PyErr_SetString(PyExc_ValueError, "diag_tsc_heads: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *cl = classes.buf;
    Py_ssize_t k = first, cap = 64;
    for (int c = 0; c < 4; c++)
        if (!(cols[c] = PyBytes_FromStringAndSize(NULL, cap * 4))) goto done;
    for (; k < stop && !cl[k]; k++) {
        int64_t s = item_at(&b[0], k), e = item_at(&b[1], k);
        if (s < 0 || e < s || e > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_tsc_heads: a line out of range");
            goto done;
        }
        if (e > s && r[e - 1] == '\n') e--;
        Py_ssize_t open, sev, code_end, msg, j = k - first;
        if (!tsc_line(r, (Py_ssize_t)s, (Py_ssize_t)e, &open, &sev, &code_end, &msg)) break;
        if (j >= cap) {
            cap *= 2;
            for (int c = 0; c < 4; c++)
                if (_PyBytes_Resize(&cols[c], cap * 4) < 0) goto done;
        }
        int32_t *ci = (int32_t *)PyBytes_AS_STRING(cols[0]), *pi = (int32_t *)PyBytes_AS_STRING(cols[1]);
        if (dict_number(combos, r + sev, code_end - sev, &ci[j]) < 0 || dict_number(paths, r + s, open - s, &pi[j]) < 0)
            goto done;
        ((int32_t *)PyBytes_AS_STRING(cols[2]))[j] = (int32_t)(sev - 2 - s);
        ((int32_t *)PyBytes_AS_STRING(cols[3]))[j] = (int32_t)(msg - s);
    }
    for (int c = 0; c < 4; c++)
        if (_PyBytes_Resize(&cols[c], (k - first) * 4) < 0) goto done;
    result = Py_BuildValue("nOOOO", k, cols[0], cols[1], cols[2], cols[3]);
done:
    for (int c = 0; c < 4; c++) Py_XDECREF(cols[c]);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&classes);
    return result;
}

/* ---- end of the stylish and padding block ---- */

/* ---- diagnostics: indented path:line:col entries (pyright's) read a run at a time ---- */

/* (stop, columns): lines first.. (class 0, led by a space or a tab) up to the first that diagnostics.py's
   LOC_LINE_RE matches with a path that starts with a digit or a text that holds "): " or ".go:"
   (diag_twins.diag_indented_py); int64 path start, path end, where the text after the location starts,
   where the line's text ends and 1 when " - " is before it, five a line; -1 for the first three of a line
   LOC_LINE_RE does not match */
static PyObject *diag_indented(PyObject *self, PyObject *args) {
    Py_buffer raw, classes, b[2];
    PyObject *objs[2];
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*OOy*nn", &raw, &objs[0], &objs[1], &classes, &first, &stop)) return NULL;
    int got = 0;
    PyObject *result = NULL, *cols = NULL;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_indented") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (b[1].len / b[1].itemsize != n || classes.len < n || first < 0 || stop > n || first > stop) {
        PyErr_SetString(PyExc_ValueError, "diag_indented: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *cl = classes.buf;
    Py_ssize_t k = first, cap = 0;
    int64_t *o = NULL;
    if (!(cols = PyBytes_FromStringAndSize(NULL, 0))) goto done;
    for (; k < stop; k++) {
        int64_t s = item_at(&b[0], k), e = item_at(&b[1], k);
        if (s < 0 || e <= s || e > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_indented: a line out of range");
            goto done;
        }
        if (cl[k] || (r[s] != ' ' && r[s] != '\t')) break;
        if (r[e - 1] == '\n') e--;
        Py_ssize_t p = s, path_end = -1;
        while (p < e && st_ws(r[p])) p++;
        Py_ssize_t at = loc_match(r + p, r + e, &path_end);
        if (at >= 0 && ((r[p] >= '0' && r[p] <= '9') || diag_has(r + s, e - s, "): ") || diag_has(r + s, e - s, ".go:"))) break;
        Py_ssize_t j = k - first;
        if (j >= cap) {
            cap = cap ? cap * 2 : 64;
            if (_PyBytes_Resize(&cols, cap * 40) < 0) goto done;
            o = (int64_t *)PyBytes_AS_STRING(cols);
        }
        if (at < 0) {  /* no location: maybe a line of the message before it (the parser asks) */
            o[5 * j] = o[5 * j + 1] = o[5 * j + 2] = -1;
            o[5 * j + 3] = e;
            o[5 * j + 4] = 0;
            continue;
        }
        at += p;
        o[5 * j] = p;
        o[5 * j + 1] = p + path_end;
        o[5 * j + 2] = at;
        o[5 * j + 3] = e;
        o[5 * j + 4] = at - 3 >= s && memcmp(r + at - 3, " - ", 3) == 0;
    }
    if (_PyBytes_Resize(&cols, (k - first) * 40) < 0) goto done;
    result = Py_BuildValue("nO", k, cols);
done:
    Py_XDECREF(cols);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&classes);
    return result;
}

/* the bytes INDENT_RE (diagnostics.py) takes from s on, before lim: spaces, tabs and no-break spaces (\xc2\xa0) */
static Py_ssize_t diag_indent_end(const unsigned char *r, Py_ssize_t s, Py_ssize_t lim) {
    for (;;) {
        if (s < lim && (r[s] == ' ' || r[s] == '\t')) s++;
        else if (s + 1 < lim && r[s] == 0xc2 && r[s + 1] == 0xa0) s += 2;
        else return s;
    }
}

static int diag_at(const unsigned char *r, Py_ssize_t p, Py_ssize_t e, const char *text) {  /* r[p:e] starts with text */
    Py_ssize_t k = (Py_ssize_t)strlen(text);
    return e - p >= k && memcmp(r + p, text, (size_t)k) == 0;
}

static Py_ssize_t diag_digits(const unsigned char *r, Py_ssize_t p, Py_ssize_t e) {
    while (p < e && r[p] >= '0' && r[p] <= '9') p++;
    return p;
}

/* whether diagnostics.py's PROGRESS_RE or SUMMARY_RE matches r[s:e], a line's text that starts with a space
   or a tab or a no-break space (then only their alternatives led by \s+ can) */
static int diag_progress(const unsigned char *r, Py_ssize_t s, Py_ssize_t e) {
    static const char *words[] = {"Compiling ", "Checking ", "Downloaded ", "Downloading ", "Fresh ", "Updating ", "Locking ",
                                  "Adding ", "Blocking ", "Unpacking ", "Documenting ", NULL};
    Py_ssize_t p = s, q;
    while (p < e && st_ws(r[p])) p++;
    if (p == s) return 0;
    for (int w = 0; words[w]; w++) {
        if (!diag_at(r, p, e, words[w])) continue;
        q = p + (Py_ssize_t)strlen(words[w]);
        Py_ssize_t x = q;
        while (x < e && !st_ws(r[x])) x++;
        if (x > q && x < e && r[x] == ' ') {
            x++;
            if (x < e && r[x] == 'v' && x + 1 < e && r[x + 1] >= '0' && r[x + 1] <= '9') return 1;
            if (x < e && r[x] >= '0' && r[x] <= '9') return 1;
        }
    }
    if (diag_at(r, p, e, "Downloaded ")) {
        q = diag_digits(r, p + 11, e);
        if (q > p + 11 && diag_at(r, q, e, " crate")) return 1;
    }
    if (diag_at(r, p, e, "Finished ")) return 1;
    q = diag_digits(r, p, e);
    if (q > p && diag_at(r, q, e, " error")) {
        q += 6;
        if (q < e && r[q] == 's') q++;
        if (diag_at(r, q, e, " and ")) {
            Py_ssize_t d = diag_digits(r, q + 5, e);
            if (d > q + 5 && diag_at(r, d, e, " warning")) {
                d += 8;
                if (d < e && r[d] == 's') d++;
                if (diag_at(r, d, e, " potentially fixable")) return 1;
            }
        }
    }
    return 0;
}

/* a byte a line of diag_indented's columns (cols: int64, five a line, from line first on): how
   diagnostics.py's _Parser._elaboration reads a line with no location under the last location line before
   it (indent: the indent of that line's head when none is in the run; the lines' class 0, their text their
   bytes): 0 none (no part of the message), 1 a part with no trailing code, 2 a part that may end with one
   (TRAIL_CODE_RE to be tried), 3 to be read by _elaboration itself (not indented: it may be a progress or
   summary line); 0 for a location line (diag_twins.diag_elaborations_py) */
static PyObject *diag_elaborations(PyObject *self, PyObject *args) {
    Py_buffer raw, cols, b[2];
    PyObject *objs[2];
    Py_ssize_t first, indent;
    if (!PyArg_ParseTuple(args, "y*OOy*nn", &raw, &objs[0], &objs[1], &cols, &first, &indent)) return NULL;
    int got = 0;
    PyObject *result = NULL;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_elaborations") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize, m = cols.len / 40;
    if (b[1].len / b[1].itemsize != n || cols.len % 40 || first < 0 || first + m > n) {
        PyErr_SetString(PyExc_ValueError, "diag_elaborations: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf;
    const int64_t *c = cols.buf;
    if (!(result = PyBytes_FromStringAndSize(NULL, m))) goto done;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(result);
    for (Py_ssize_t j = 0; j < m; j++) {
        Py_ssize_t k = first + j;
        int64_t s = item_at(&b[0], k), e = c[5 * j + 3];
        if (s < 0 || e < s || e > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_elaborations: a line out of range");
            Py_CLEAR(result);
            goto done;
        }
        o[j] = 0;
        Py_ssize_t at = diag_indent_end(r, (Py_ssize_t)s, raw.len);
        if (c[5 * j] >= 0) {  /* a location line: the indent of the lines after it */
            indent = at - s;
            continue;
        }
        if (at - s <= indent || at >= e || memchr("0123456789x!\xc3\xe2\x0b\x0c", r[at], 16) != NULL || diag_has(r + s, e - s, "): "))
            continue;
        if (k + 1 < n) {
            int64_t ne = item_at(&b[1], k + 1);
            if (ne > e && ne <= raw.len && (diag_has(r + e, ne - e, "-[") || diag_has(r + e, ne - e, "\xe2\x94\x80[")))
                continue;
        }
        if (memchr("ABCDFLU", r[at], 7) != NULL) {  /* PROGRESS_RE or SUMMARY_RE may match */
            if (at == s) {
                o[j] = 3;
                continue;
            }
            if (diag_progress(r, (Py_ssize_t)s, (Py_ssize_t)e)) continue;
        }
        Py_ssize_t t = e;
        while (t > s && (r[t - 1] == ' ' || (r[t - 1] >= '\t' && r[t - 1] <= '\r'))) t--;
        o[j] = t > s && (r[t - 1] == ')' || r[t - 1] == ']') ? 2 : 1;
    }
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&cols);
    return result;
}

/* diagnostics.py's _Parser._bulk, but for the columns: the location lines diag_heads found (lines, uint32
   line indexes) from the h-th on that follow each other and that ok says are plain diagnostics, their kinds
   set to HEAD (0) in kind; then, while the lines after the last of them up to the next such line are a run of
   its details (classes 1 to 3; under GNU (style 1) not a .java path (paths[path]), the first blank or
   indented or of class 1, the last of class 1 or the location line after them no bare caret line; any under
   PLAIN (0)), those details' kinds set to DETAIL (2) and the location lines from that one on read the same
   way. (the index past the location lines read, int64 pairs: the index of each location line whose details
   were read and its last detail line) (diag_twins.diag_bulk_py) */
static PyObject *diag_bulk(PyObject *self, PyObject *args) {
    Py_buffer ok, classes, raw, style, kind, b[4];
    PyObject *objs[4], *paths;
    Py_ssize_t h;
    if (!PyArg_ParseTuple(args, "Oy*y*y*OOy*OO!w*n", &objs[0], &ok, &classes, &raw, &objs[1], &objs[2], &style, &objs[3],
                          &PyList_Type, &paths, &kind, &h))
        return NULL;
    int got = 0;
    PyObject *result = NULL, *grown = NULL;
    for (; got < 4; got++)
        if (index_buffer(objs[got], &b[got], "diag_bulk") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize, nl = b[1].len / b[1].itemsize;
    if (ok.len != n || style.len != n || b[3].len / b[3].itemsize != n || b[2].len / b[2].itemsize != nl
        || classes.len < nl || kind.len < nl || h < 0 || h >= n) {
        PyErr_SetString(PyExc_ValueError, "diag_bulk: bad range or columns");
        goto done;
    }
    const unsigned char *okb = ok.buf, *cl = classes.buf, *r = raw.buf, *st = style.buf;
    unsigned char *kd = kind.buf;
    Py_ssize_t cap = 0, m = 0, e;
    int64_t *g = NULL;
    if (!(grown = PyBytes_FromStringAndSize(NULL, 0))) goto done;
    for (;;) {
        int64_t first = item_at(&b[0], h);
        for (e = h + 1; e < n && okb[e] && item_at(&b[0], e) == first + (e - h); e++)
            ;
        if (first < 0 || first + (e - h) > nl) goto range;
        memset(kd + first, 0, (size_t)(e - h));  /* HEAD */
        if (e >= n || !okb[e]) break;
        Py_ssize_t i = (Py_ssize_t)item_at(&b[0], e - 1) + 1, stop = (Py_ssize_t)item_at(&b[0], e), x;
        if (stop >= nl) goto range;
        if (i >= stop) break;
        for (x = i; x < stop && cl[x] >= 1 && cl[x] <= 3; x++)
            ;
        if (x < stop) break;
        int sty = st[e - 1];
        if (sty != 0) {
            if (sty != 1) break;
            int64_t pid = item_at(&b[3], e - 1);
            if (pid < 0 || pid >= PyList_GET_SIZE(paths)) {
                PyErr_SetString(PyExc_ValueError, "diag_bulk: a path past its table");
                goto done;
            }
            PyObject *path = PyList_GET_ITEM(paths, pid);
            if (!PyBytes_Check(path)) {
                PyErr_SetString(PyExc_TypeError, "diag_bulk: paths must be bytes");
                goto done;
            }
            Py_ssize_t pl = PyBytes_GET_SIZE(path);
            if (pl >= 5 && memcmp(PyBytes_AS_STRING(path) + pl - 5, ".java", 5) == 0) break;
            int64_t s = item_at(&b[1], i);
            if (s < 0 || s >= raw.len) goto range;
            if (!(cl[i] == 1 || r[s] == ' ' || r[s] == '\t')) break;
            if (cl[stop - 1] != 1) {  /* CARET_RE on the location line after them */
                int64_t p = item_at(&b[1], stop), q = item_at(&b[2], stop);
                if (p < 0 || q < p || q > raw.len) goto range;
                if (q > p && r[q - 1] == '\n') q--;
                while (p < q && st_ws(r[p])) p++;
                if (p < q && r[p] == '^') {
                    p++;
                    while (p < q && st_ws(r[p])) p++;
                    if (p == q) break;
                }
            }
        }
        memset(kd + i, 2, (size_t)(stop - i));  /* DETAIL */
        if (m >= cap) {
            cap = cap ? cap * 2 : 64;
            if (_PyBytes_Resize(&grown, cap * 16) < 0) goto done;
            g = (int64_t *)PyBytes_AS_STRING(grown);
        }
        g[2 * m] = e - 1;
        g[2 * m + 1] = stop - 1;
        m++;
        h = e;
    }
    if (_PyBytes_Resize(&grown, m * 16) < 0) goto done;
    result = Py_BuildValue("nO", e, grown);
    goto done;
range:
    PyErr_SetString(PyExc_ValueError, "diag_bulk: a line out of range");
done:
    Py_XDECREF(grown);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&ok);
    PyBuffer_Release(&classes);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&style);
    PyBuffer_Release(&kind);
    return result;
}

static int diag_word_byte(unsigned char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* diagnostics.py's LINT_RE searched in s[0:len] (a line's text): 1 and where the lint's name starts and ends */
static int diag_lint(const unsigned char *s, Py_ssize_t len, Py_ssize_t *from, Py_ssize_t *to) {
    static const char note[] = "= note: `#[", help[] = "= help: for further information visit ";
    Py_ssize_t p = 0;
    while (p < len && st_ws(s[p])) p++;
    if (len - p >= (Py_ssize_t)sizeof note - 1 && memcmp(s + p, note, sizeof note - 1) == 0) {
        Py_ssize_t q = p + sizeof note - 1, a;
        if (len - q >= 5 && (memcmp(s + q, "warn(", 5) == 0 || memcmp(s + q, "deny(", 5) == 0)) {
            for (a = q += 5; q < len && (diag_word_byte(s[q]) || s[q] == ':'); q++)
                ;
            static const char tail[] = ")]` on by default";
            if (q > a && len - q >= (Py_ssize_t)sizeof tail - 1 && memcmp(s + q, tail, sizeof tail - 1) == 0) {
                *from = a;
                *to = q;
                return 1;
            }
        }
    }
    if (len - p >= (Py_ssize_t)sizeof help - 1 && memcmp(s + p, help, sizeof help - 1) == 0) {
        Py_ssize_t q = p + sizeof help - 1, hash = -1;
        for (Py_ssize_t x = q; x < len; x++) {
            if (st_ws(s[x]) || s[x] == '\n') return 0;
            if (s[x] == '#') hash = x;
        }
        if (hash <= q || hash + 1 >= len) return 0;
        for (Py_ssize_t x = hash + 1; x < len; x++)
            if (!diag_word_byte(s[x])) return 0;
        *from = hash + 1;
        *to = len;
        return 1;
    }
    return 0;
}

/* the details after rustc's head and its --> line read as diagnostics.py's _Parser._run and _note_line read
   them under a rustc diagnostic: lines first.. of class 1, 2, 3 (snippet, blank, help) or 5 (= help:/= note:)
   before stop, their kinds set to DETAIL (2); (the line past them, int64 pairs: where the lint's name
   (LINT_RE) starts and ends in each = line that names one, in order) (diag_twins.diag_rust_details_py) */
static PyObject *diag_rust_details(PyObject *self, PyObject *args) {
    Py_buffer raw, classes, kind, b[2];
    PyObject *objs[2];
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*OOy*w*nn", &raw, &objs[0], &objs[1], &classes, &kind, &first, &stop)) return NULL;
    int got = 0;
    PyObject *result = NULL, *found = NULL;
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_rust_details") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (b[1].len / b[1].itemsize != n || classes.len < n || kind.len < n || first < 0 || stop > n) {
        PyErr_SetString(PyExc_ValueError, "diag_rust_details: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *cl = classes.buf;
    unsigned char *kd = kind.buf;
    Py_ssize_t k = first, cap = 0, m = 0;
    int64_t *o = NULL;
    if (!(found = PyBytes_FromStringAndSize(NULL, 0))) goto done;
    for (; k < stop && ((cl[k] >= 1 && cl[k] <= 3) || cl[k] == 5); k++) {
        kd[k] = 2;
        if (cl[k] != 5) continue;
        int64_t s = item_at(&b[0], k), e = item_at(&b[1], k);
        if (s < 0 || e < s || e > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_rust_details: a line out of range");
            goto done;
        }
        if (e > s && r[e - 1] == '\n') e--;
        Py_ssize_t from, to;
        if (!diag_lint(r + s, e - s, &from, &to)) continue;
        if (m >= cap) {
            cap = cap ? cap * 2 : 16;
            if (_PyBytes_Resize(&found, cap * 16) < 0) goto done;
            o = (int64_t *)PyBytes_AS_STRING(found);
        }
        o[2 * m] = s + from;
        o[2 * m + 1] = s + to;
        m++;
    }
    if (_PyBytes_Resize(&found, m * 16) < 0) goto done;
    result = Py_BuildValue("nO", k, found);
done:
    Py_XDECREF(found);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&classes);
    PyBuffer_Release(&kind);
    return result;
}

static int diag_code_byte(unsigned char c) { return diag_word_byte(c) || c == '@' || c == '/' || c == '.' || c == '-'; }

/* diagnostics.py's TRAIL_CODE_RE searched in r[s:e] (a line's text): 1 with where its first group that is not
   empty starts and ends ([Error/rule], [code], (reportRule), (kebab-case-rule) at the end, spaces after it) */
static int diag_trail(const unsigned char *r, Py_ssize_t s, Py_ssize_t e, Py_ssize_t *from, Py_ssize_t *to) {
    while (e > s && st_ws(r[e - 1])) e--;
    if (e - s < 3) return 0;
    Py_ssize_t p = e - 2;
    if (r[e - 1] == ']') {
        while (p >= s && (diag_code_byte(r[p]) || r[p] == ':')) p--;
        if (p < s || r[p] != '[' || p == e - 2) return 0;
        Py_ssize_t q = p + 1, a = -1;
        if (diag_at(r, q, e, "Error/")) a = q + 6;
        else if (diag_at(r, q, e, "Warning/")) a = q + 8;
        if (a >= 0 && a < e - 1) {
            Py_ssize_t x = a;
            while (x < e - 1 && diag_code_byte(r[x])) x++;
            if (x == e - 1) {
                *from = a;
                *to = e - 1;
                return 1;
            }
        }
        *from = q;
        *to = e - 1;
        return 1;
    }
    if (r[e - 1] != ')') return 0;
    while (p >= s && (diag_word_byte(r[p]) || r[p] == '-')) p--;
    if (p < s || r[p] != '(' || p == e - 2) return 0;
    Py_ssize_t q = p + 1, x;
    if (e - 1 - q > 6 && memcmp(r + q, "report", 6) == 0) {
        for (x = q + 6; x < e - 1 && diag_word_byte(r[x]); x++)
            ;
        if (x == e - 1) {
            *from = q;
            *to = e - 1;
            return 1;
        }
    }
    int words = 0, letters = 0;  /* [a-z]+(?:-[a-z]+)+ */
    for (x = q; x < e - 1; x++) {
        if (r[x] >= 'a' && r[x] <= 'z') letters++;
        else if (r[x] == '-' && letters) {
            words++;
            letters = 0;
        } else return 0;
    }
    if (!letters || !words) return 0;
    *from = q;
    *to = e - 1;
    return 1;
}

/* key_ids[text] (text: r[from:to] as UTF-8), appended to keys when new (diagnostics.py's _Diags.key_id); -1 on an error */
static long diag_key_id(PyObject *key_ids, PyObject *keys, const unsigned char *r, Py_ssize_t from, Py_ssize_t to) {
    PyObject *key = PyUnicode_DecodeUTF8((const char *)r + from, to - from, "replace");
    if (!key) return -1;
    PyObject *id = PyDict_GetItemWithError(key_ids, key);
    long n;
    if (id) {
        n = PyLong_AsLong(id);
    } else if (PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyList_GET_SIZE(keys)))) {
        n = -1;
    } else {
        n = PyDict_SetItem(key_ids, key, id) < 0 || PyList_Append(keys, key) < 0 ? -1 : PyLong_AsLong(id);
        Py_DECREF(id);
    }
    Py_DECREF(key);
    return n;
}

static int place_space(unsigned char c) {  /* bytes.split's whitespace */
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c';
}

static int place_tail_after(const unsigned char *r, Py_ssize_t q, Py_ssize_t e) {  /* LOC_TAIL's (?=:| -) at q */
    return (q < e && r[q] == ':') || (q + 1 < e && r[q] == ' ' && r[q + 1] == '-');
}

/* The end of LOC_TAIL (":\d+(?::\d+)?(?=:| -)") matched at p, before e; -1 when it does not match. */
static Py_ssize_t place_tail(const unsigned char *r, Py_ssize_t p, Py_ssize_t e) {
    if (p >= e || r[p] != ':') return -1;
    Py_ssize_t q = p + 1, d = q;
    while (q < e && r[q] >= '0' && r[q] <= '9') q++;
    if (q == d) return -1;
    if (q < e && r[q] == ':') {
        Py_ssize_t q2 = q + 1, d2 = q2;
        while (q2 < e && r[q2] >= '0' && r[q2] <= '9') q2++;
        if (q2 > d2 && place_tail_after(r, q2, e)) return q2;
    }
    return place_tail_after(r, q, e) ? q : -1;
}

/* The size of one diagnostic's place (diag_place_sizes), -1 with an error set; *from: where it starts in r (an
   indented one's), or where the head line's first word does (a stylish one's: the place is the path, ":" and it). */
static Py_ssize_t place_size(const unsigned char *r, Py_ssize_t s, Py_ssize_t e, PyObject *name, int stylish,
                             Py_ssize_t *from) {
    if (!PyBytes_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "a path is not bytes");
        return -1;
    }
    const char *nm = PyBytes_AS_STRING(name);
    Py_ssize_t len = PyBytes_GET_SIZE(name), at = -1, q;
    if (stylish) {  /* path ":" the head line's first word */
        while (s < e && place_space(r[s])) s++;
        for (q = s; q < e && !place_space(r[q]); q++) {}
        *from = s;
        if (q > s) return len + 1 + (q - s);
    } else {  /* from the path's first place in the head line to the end of LOC_TAIL after it */
        for (Py_ssize_t a = s; a + len <= e; a++)
            if (len == 0 || (r[a] == (unsigned char)nm[0] && memcmp(r + a, nm, (size_t)len) == 0)) {
                at = a;
                break;
            }
        *from = at;
        if (at >= 0 && (q = place_tail(r, at + len, e)) >= 0) return q - at;
    }
    PyErr_SetString(PyExc_ValueError, "no place in the head line");
    return -1;
}

/* The place of one diagnostic (diag_places): raw[from:from+size], or the path, ":" and the first word. */
static PyObject *place_bytes(const unsigned char *r, Py_ssize_t from, Py_ssize_t size, PyObject *name, int stylish) {
    if (!stylish) return PyBytes_FromStringAndSize((const char *)r + from, size);
    Py_ssize_t len = PyBytes_GET_SIZE(name);
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out) {
        char *o = PyBytes_AS_STRING(out);
        memcpy(o, PyBytes_AS_STRING(name), (size_t)len);
        o[len] = ':';
        memcpy(o + len + 1, r + from, (size_t)(size - len - 1));
    }
    return out;
}

/* diag_place_sizes (made 0: uint32 sizes) and diag_places (made 1: a list of bytes). */
static PyObject *places_of(PyObject *args, int made, const char *what) {
    Py_buffer raw, style, starts, ends, heads, path, js;
    PyObject *starts_o, *ends_o, *heads_o, *path_o, *js_o, *paths, *out = NULL;
    int stylish, got = 0;
    if (!PyArg_ParseTuple(args, "y*OOOOy*OO!i", &raw, &starts_o, &ends_o, &heads_o, &path_o, &style, &js_o, &PyList_Type,
                          &paths, &stylish)) return NULL;
    Py_buffer *b[5] = {&starts, &ends, &heads, &path, &js};
    PyObject *o[5] = {starts_o, ends_o, heads_o, path_o, js_o};
    for (; got < 5; got++)
        if (index_buffer(o[got], b[got], what) < 0) goto done;
    Py_ssize_t nlines = starts.len / starts.itemsize, n = heads.len / heads.itemsize, m = js.len / js.itemsize;
    if (ends.len / ends.itemsize != nlines || path.len / path.itemsize < n || style.len < n) {
        PyErr_Format(PyExc_ValueError, "%s: bad columns", what);
        goto done;
    }
    if (!(out = made ? PyList_New(m) : PyBytes_FromStringAndSize(NULL, m * 4))) goto done;
    uint32_t *sizes = made ? NULL : (uint32_t *)PyBytes_AS_STRING(out);
    const unsigned char *r = raw.buf, *st = style.buf;
    for (Py_ssize_t k = 0; k < m; k++) {
        int64_t j = item_at(&js, k), h = j >= 0 && j < n ? item_at(&heads, (Py_ssize_t)j) : -1;
        int64_t pid = h >= 0 ? item_at(&path, (Py_ssize_t)j) : -1;
        Py_ssize_t s = h >= 0 && h < nlines ? (Py_ssize_t)item_at(&starts, (Py_ssize_t)h) : -1;
        Py_ssize_t e = s >= 0 ? (Py_ssize_t)item_at(&ends, (Py_ssize_t)h) : -1, from = 0;
        if (s < 0 || e > raw.len || s > e || pid < 0 || pid >= PyList_GET_SIZE(paths)) {
            PyErr_Format(PyExc_ValueError, "%s: a diagnostic, line or path out of range", what);
            Py_CLEAR(out);
            goto done;
        }
        PyObject *name = PyList_GET_ITEM(paths, (Py_ssize_t)pid), *place;
        Py_ssize_t size = place_size(r, s, e, name, st[j] == stylish, &from);
        if (size < 0) {
            Py_CLEAR(out);
            goto done;
        }
        if (!made) {
            sizes[k] = (uint32_t)size;
        } else if ((place = place_bytes(r, from, size, name, st[j] == stylish))) {
            PyList_SET_ITEM(out, k, place);
        } else {
            Py_CLEAR(out);
            goto done;
        }
    }
done:
    for (int x = 0; x < got; x++) PyBuffer_Release(b[x]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&style);
    return out;
}

/* uint32 the size of each of the places _Kept.place makes of the diagnostics js (diag_twins.diag_place_sizes_py) */
static PyObject *diag_place_sizes(PyObject *self, PyObject *args) {
    return places_of(args, 0, "diag_place_sizes");
}

/* The places _Kept.place makes of the diagnostics js, a list of bytes (diag_twins.diag_places_py) */
static PyObject *diag_places(PyObject *self, PyObject *args) {
    return places_of(args, 1, "diag_places");
}

/* int32 the index in diag_indented's columns (cols) of each location line whose text after the location made
   (_Parser.indented) does not have yet, in order (diag_twins.diag_indented_unknown_py) */
static PyObject *diag_indented_unknown(PyObject *self, PyObject *args) {
    Py_buffer raw, cols;
    PyObject *made, *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*O!", &raw, &cols, &PyDict_Type, &made)) return NULL;
    Py_ssize_t m = cols.len / 40, k = 0;
    if (cols.len % 40) {
        PyErr_SetString(PyExc_ValueError, "diag_indented_unknown: bad columns");
        goto done;
    }
    if (!(out = PyBytes_FromStringAndSize(NULL, m * 4))) goto done;
    int32_t *found = (int32_t *)PyBytes_AS_STRING(out);
    const unsigned char *r = raw.buf;
    const int64_t *c = cols.buf;
    for (Py_ssize_t j = 0; j < m; j++) {
        const int64_t *o = c + 5 * j;
        if (o[0] < 0) continue;
        if (o[2] < 0 || o[2] > o[3] || o[3] > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_indented_unknown: a line out of range");
            Py_CLEAR(out);
            goto done;
        }
        PyObject *rest = PyBytes_FromStringAndSize((const char *)r + o[2], o[3] - o[2]);
        if (!rest) {
            Py_CLEAR(out);
            goto done;
        }
        int known = PyDict_Contains(made, rest);
        Py_DECREF(rest);
        if (known < 0) {
            Py_CLEAR(out);
            goto done;
        }
        if (!known) found[k++] = (int32_t)j;
    }
    _PyBytes_Resize(&out, k * 4);
done:
    PyBuffer_Release(&raw);
    PyBuffer_Release(&cols);
    return out;
}

/* diagnostics.py's _Parser._indented over the lines it reads without Python: from line j of diag_indented's
   columns (cols; their diag_elaborations bytes: reads; the line of the first: first) on, each location line
   whose text after the location made (_Parser.indented) has, as a diagnostic (not None), and each line
   reads says is a part with no trailing code under a head with " - " before its text (dash: 1 when the
   open one has), up to the first other line. Each path numbered in path_ids, appended to paths when new
   (_Diags.path_id). (the line stopped at, the heads' made values, then int32 each head's line, its last
   line, its path's number, a byte its style (PYRIGHT (2) after " - ", else the value's fourth item), a byte
   each line's kind (HEAD 0, PART 1), the last part line read before the first head (-1: none), whether
   the open head has " - " (diag_twins.diag_indented_known_py) */
static PyObject *diag_indented_known(PyObject *self, PyObject *args) {
    Py_buffer raw, cols, reads, starts;
    PyObject *made, *path_ids, *paths, *key_ids, *keys, *starts_o;
    Py_ssize_t j, first, head_j;
    int dash;
    if (!PyArg_ParseTuple(args, "y*Oy*y*nnniO!O!O!O!O!", &raw, &starts_o, &cols, &reads, &j, &first, &head_j, &dash,
                          &PyDict_Type, &made, &PyDict_Type, &path_ids, &PyList_Type, &paths, &PyDict_Type, &key_ids,
                          &PyList_Type, &keys))
        return NULL;
    PyObject *result = NULL, *gots = NULL, *out[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    Py_ssize_t m = cols.len / 40, j0 = j, nh = 0, first_last = -1, nk = 0;
    int got_starts = index_buffer(starts_o, &starts, "diag_indented_known") == 0;
    if (!got_starts) goto done;
    if (cols.len % 40 || reads.len != m || j < 0 || j > m || head_j >= m || first < 0
        || first + m > starts.len / starts.itemsize) {
        PyErr_SetString(PyExc_ValueError, "diag_indented_known: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *rd = reads.buf;
    const int64_t *c = cols.buf;
    if (!(gots = PyList_New(0))) goto done;
    for (int x = 0; x < 3; x++)
        if (!(out[x] = PyBytes_FromStringAndSize(NULL, (m - j) * 4))) goto done;
    if (!(out[3] = PyBytes_FromStringAndSize(NULL, m - j)) || !(out[4] = PyBytes_FromStringAndSize(NULL, m - j))
        || !(out[5] = PyBytes_FromStringAndSize(NULL, (m - j) * 8)))
        goto done;
    int32_t *heads = (int32_t *)PyBytes_AS_STRING(out[0]), *lasts = (int32_t *)PyBytes_AS_STRING(out[1]),
            *pids = (int32_t *)PyBytes_AS_STRING(out[2]), *rekeys = (int32_t *)PyBytes_AS_STRING(out[5]);
    unsigned char *styles = (unsigned char *)PyBytes_AS_STRING(out[3]), *kinds = (unsigned char *)PyBytes_AS_STRING(out[4]);
    int trail = -1;  /* whether the open head's line has a trailing code (-1: not worked out yet) */
    for (; j < m; j++) {
        const int64_t *o = c + 5 * j;
        if (o[0] < 0) {  /* a line with no location: a part of the open head's message, or stop */
            if (!dash || (rd[j] != 1 && rd[j] != 2) || head_j < 0) break;
            if (rd[j] == 2) {  /* it may end with a code: the rule, unless the head line has one */
                Py_ssize_t from, to, s = (Py_ssize_t)item_at(&starts, first + j), e = (Py_ssize_t)o[3];
                const int64_t *hd = c + 5 * head_j;
                if (s < 0 || e < s || e > raw.len || hd[0] < 0 || hd[3] < hd[0] || hd[3] > raw.len) {
                    PyErr_SetString(PyExc_ValueError, "diag_indented_known: a line out of range");
                    goto done;
                }
                if (trail < 0) trail = diag_trail(r, (Py_ssize_t)hd[0], (Py_ssize_t)hd[3], &from, &to);
                if (!trail && diag_trail(r, s, e, &from, &to)) {
                    long key = diag_key_id(key_ids, keys, r, from, to);
                    if (key < 0) goto done;
                    rekeys[2 * nk] = (int32_t)(nh - 1);
                    rekeys[2 * nk + 1] = (int32_t)key;
                    nk++;
                }
            }
            if (nh) lasts[nh - 1] = (int32_t)(first + j);
            else first_last = first + j;
            kinds[j - j0] = 1;
            continue;
        }
        if (o[0] > o[1] || o[1] > raw.len || o[2] > o[3] || o[2] < 0 || o[3] > raw.len) {
            PyErr_SetString(PyExc_ValueError, "diag_indented_known: a line out of range");
            goto done;
        }
        PyObject *rest = PyBytes_FromStringAndSize((const char *)r + o[2], o[3] - o[2]);
        if (!rest) goto done;
        PyObject *got = PyDict_GetItemWithError(made, rest);
        Py_DECREF(rest);
        if (!got) {
            if (PyErr_Occurred()) goto done;
            break;
        }
        if (got == Py_None) break;
        if (!PyTuple_Check(got) || PyTuple_GET_SIZE(got) < 4) {
            PyErr_SetString(PyExc_TypeError, "diag_indented_known: made's values must be tuples or None");
            goto done;
        }
        long style = 2;
        if (!o[4]) {
            style = PyLong_AsLong(PyTuple_GET_ITEM(got, 3));
            if (style == -1 && PyErr_Occurred()) goto done;
        }
        PyObject *path = PyBytes_FromStringAndSize((const char *)r + o[0], o[1] - o[0]);
        if (!path) goto done;
        PyObject *id = PyDict_GetItemWithError(path_ids, path);
        long pid;
        if (id) {
            pid = PyLong_AsLong(id);
        } else if (PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyList_GET_SIZE(paths)))) {
            Py_DECREF(path);
            goto done;
        } else {
            int bad = PyDict_SetItem(path_ids, path, id) < 0 || PyList_Append(paths, path) < 0;
            pid = PyLong_AsLong(id);
            Py_DECREF(id);
            if (bad) {
                Py_DECREF(path);
                goto done;
            }
        }
        Py_DECREF(path);
        if (PyList_Append(gots, got) < 0) goto done;
        heads[nh] = lasts[nh] = (int32_t)(first + j);
        pids[nh] = (int32_t)pid;
        styles[nh] = (unsigned char)style;
        nh++;
        kinds[j - j0] = 0;
        dash = o[4] != 0;
        head_j = j;
        trail = -1;
    }
    for (int x = 0; x < 3; x++)
        if (_PyBytes_Resize(&out[x], nh * 4) < 0) goto done;
    if (_PyBytes_Resize(&out[3], nh) < 0 || _PyBytes_Resize(&out[4], j - j0) < 0 || _PyBytes_Resize(&out[5], nk * 8) < 0)
        goto done;
    result = Py_BuildValue("nOOOOOOOni", j, gots, out[0], out[1], out[2], out[3], out[4], out[5], first_last, dash);
done:
    Py_XDECREF(gots);
    for (int x = 0; x < 6; x++) Py_XDECREF(out[x]);
    if (got_starts) PyBuffer_Release(&starts);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&cols);
    PyBuffer_Release(&reads);
    return result;
}

/* diagnostics.py's RUST_HEAD_RE on a head line r[s:e]: 1 with the severity (sev, sev_len; "error" when none),
   the code (code, code_len: 0 for none) and where the message starts */
static int diag_rust_head_line(const unsigned char *r, Py_ssize_t s, Py_ssize_t e, const char **sev, Py_ssize_t *sev_len,
                               Py_ssize_t *code, Py_ssize_t *code_len, Py_ssize_t *msg) {
    static const char *sevs[] = {"fatal error", "error", "warning", "note", "info", "information", "hint", "remark",
                                 "convention", "refactor", NULL};
    for (int w = 0; sevs[w]; w++) {
        Py_ssize_t p = s + (Py_ssize_t)strlen(sevs[w]);
        if (!diag_at(r, s, e, sevs[w])) continue;
        *code = *code_len = 0;
        if (p < e && r[p] == '[') {
            Py_ssize_t q = p + 1;
            while (q < e && (diag_word_byte(r[q]) || r[q] == ':' || r[q] == '-')) q++;
            if (q > p + 1 && q < e && r[q] == ']' && diag_at(r, q + 1, e, ": ") && q + 3 < e) {
                *code = p + 1;
                *code_len = q - p - 1;
                *msg = q + 3;
                *sev = sevs[w];
                *sev_len = p - s;
                return 1;
            }
            continue;
        }
        if (diag_at(r, p, e, ": ") && p + 2 < e) {
            *msg = p + 2;
            *sev = sevs[w];
            *sev_len = p - s;
            return 1;
        }
    }
    Py_ssize_t p = s;  /* ([A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(.+) */
    while (p < e && r[p] >= 'A' && r[p] <= 'Z') p++;
    if (p == s || p - s > 4) return 0;
    Py_ssize_t d = diag_digits(r, p, e);
    if (d - p < 2 || d - p > 4 || d >= e || r[d] != ' ') return 0;
    Py_ssize_t m = d + 1;
    if (diag_at(r, m, e, "[*] ") && m + 4 < e) m += 4;
    if (m >= e) return 0;
    *sev = "error";
    *sev_len = 5;
    *code = s;
    *code_len = d - s;
    *msg = m;
    return 1;
}

/* the rest of diagnostics.py's RUST_BLOCK_RE on the line after a head, r[s:e] (ARROW_RE's form: spaces, "--> ",
   path:line[:col], spaces): 1 with where its path starts and ends and where its place ends */
static int diag_rust_arrow(const unsigned char *r, Py_ssize_t s, Py_ssize_t e, Py_ssize_t *path, Py_ssize_t *path_end,
                           Py_ssize_t *loc_end) {
    Py_ssize_t p = s;
    while (p < e && (r[p] == ' ' || r[p] == '\t' || r[p] == '\r' || r[p] == 0x0b || r[p] == 0x0c)) p++;
    if (!diag_at(r, p, e, "--> ")) return 0;
    p += 4;
    for (int drive = 1; drive >= 0; drive--) {
        Py_ssize_t q = p;
        if (drive) {
            if (!(q + 1 < e && ((r[q] | 32) >= 'a' && (r[q] | 32) <= 'z') && r[q + 1] == ':')) continue;
            q += 2;
        }
        Py_ssize_t a = q;
        while (q < e && !st_ws(r[q]) && r[q] != ':') q++;
        if (q == a || q >= e || r[q] != ':') continue;
        Py_ssize_t pe = q, d = diag_digits(r, q + 1, e);
        if (d == q + 1) continue;
        Py_ssize_t end = d;
        if (d < e && r[d] == ':') {
            Py_ssize_t d2 = diag_digits(r, d + 1, e);
            if (d2 > d + 1) end = d2;
        }
        Py_ssize_t t = end;
        while (t < e && (r[t] == ' ' || r[t] == '\t' || r[t] == '\r' || r[t] == 0x0b || r[t] == 0x0c)) t++;
        if (t != e) continue;
        *path = p;
        *path_end = pe;
        *loc_end = end;
        return 1;
    }
    return 0;
}

/* numbers[text] (bytes r[from:to]), appended to items when new (diagnostics.py's _Diags.path_id); -1 on an error */
static long diag_bytes_id(PyObject *numbers, PyObject *items, const unsigned char *r, Py_ssize_t from, Py_ssize_t to) {
    PyObject *text = PyBytes_FromStringAndSize((const char *)r + from, to - from);
    if (!text) return -1;
    PyObject *id = PyDict_GetItemWithError(numbers, text);
    long n;
    if (id) {
        n = PyLong_AsLong(id);
    } else if (PyErr_Occurred() || !(id = PyLong_FromSsize_t(PyList_GET_SIZE(items)))) {
        n = -1;
    } else {
        n = PyDict_SetItem(numbers, text, id) < 0 || PyList_Append(items, text) < 0 ? -1 : PyLong_AsLong(id);
        Py_DECREF(id);
    }
    Py_DECREF(text);
    return n;
}

/* rustc's diagnostics (diagnostics.py's _Parser._rust_head, then _rust_details) read from line first on (before
   stop; a line's text its bytes): while a line of class 4 is a head (RUST_HEAD_RE) whose next line is its -->
   line, not a note unless one was read before it here and its place is not that one's (then a line of class 0
   starting "note: " with no "): ", its --> line before stop, is one too), whose rule rust_keys knows (its code, else (severity, message)): its kinds set (HEAD, PART,
   then DETAIL for the lines of class 1, 2, 3 or 5 after it, before stop), its path numbered (path_ids, paths),
   its severity (key_ids, keys), a lint a = line names its rule unless its head has a [code] (the same tables).
   (the line stopped at; int32 columns: head line, last line, rule, severity, path, where the message starts;
   the places (bytes); int32 pairs (which diagnostic, rule); 1 when the last one's details were read)
   (diag_twins.diag_rust_run_py) */
static PyObject *diag_rust_run(PyObject *self, PyObject *args) {
    Py_buffer raw, classes, kind, b[2];
    PyObject *objs[2], *rust_keys, *key_ids, *keys, *path_ids, *paths;
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "y*OOy*w*nnO!O!O!O!O!", &raw, &objs[0], &objs[1], &classes, &kind, &first, &stop,
                          &PyDict_Type, &rust_keys, &PyDict_Type, &key_ids, &PyList_Type, &keys, &PyDict_Type, &path_ids,
                          &PyList_Type, &paths))
        return NULL;
    int got = 0, detailed = 0;
    PyObject *result = NULL, *locs = NULL, *out[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    for (; got < 2; got++)
        if (index_buffer(objs[got], &b[got], "diag_rust_run") < 0) goto done;
    Py_ssize_t n = b[0].len / b[0].itemsize;
    if (b[1].len / b[1].itemsize != n || classes.len < n || kind.len < n || first < 0 || stop > n || first > stop) {
        PyErr_SetString(PyExc_ValueError, "diag_rust_run: bad range or columns");
        goto done;
    }
    const unsigned char *r = raw.buf, *cl = classes.buf;
    unsigned char *kd = kind.buf;
    Py_ssize_t k = first, cap = 64, cap_k = 64, m = 0, nk = 0;
    if (!(locs = PyList_New(0))) goto done;
    for (int x = 0; x < 7; x++)
        if (!(out[x] = PyBytes_FromStringAndSize(NULL, 64 * (x == 6 ? 8 : 4)))) goto done;
    int32_t *col[7];
    for (int x = 0; x < 7; x++) col[x] = (int32_t *)PyBytes_AS_STRING(out[x]);
    while (k < stop && k + 1 < n) {
        if (cl[k] != 4) {  /* rustc's note: after one read here (class 0, not tsc's head): _unindented's _rust_head */
            if (cl[k] != 0 || m == 0 || k + 1 >= stop) break;
            int64_t ns = item_at(&b[0], k), ne = item_at(&b[1], k);
            if (ns < 0 || ne <= ns || ne > raw.len || !diag_at(r, (Py_ssize_t)ns, (Py_ssize_t)ne, "note: ")) break;
            int tsc = 0;
            for (int64_t x = ns; x + 3 <= ne && !tsc; x++)
                tsc = r[x] == ')' && r[x + 1] == ':' && r[x + 2] == ' ';
            if (tsc) break;
        }
        if (m >= cap) {  /* room for one more diagnostic */
            cap *= 2;
            for (int x = 0; x < 6; x++) {
                if (_PyBytes_Resize(&out[x], cap * 4) < 0) goto done;
                col[x] = (int32_t *)PyBytes_AS_STRING(out[x]);
            }
        }
        int64_t s = item_at(&b[0], k), e = item_at(&b[1], k), s2 = item_at(&b[0], k + 1), e2 = item_at(&b[1], k + 1);
        if (s < 0 || e <= s || e > s2 || s2 > e2 || e2 > raw.len || r[e - 1] != '\n') break;
        e--;
        if (e2 > s2 && r[e2 - 1] == '\n') e2--;
        const char *sev;
        Py_ssize_t sev_len, code, code_len, msg, path, path_end, loc_end;
        if (!diag_rust_head_line(r, (Py_ssize_t)s, (Py_ssize_t)e, &sev, &sev_len, &code, &code_len, &msg)) break;
        if (!diag_rust_arrow(r, (Py_ssize_t)s2, (Py_ssize_t)e2, &path, &path_end, &loc_end)) break;
        if (sev_len == 4 && memcmp(sev, "note", 4) == 0) {  /* a note: read when not at the place of the one before */
            if (m == 0) break;
            PyObject *prev = PyList_GET_ITEM(locs, m - 1);
            if (PyBytes_GET_SIZE(prev) == loc_end - path && memcmp(PyBytes_AS_STRING(prev), r + path, (size_t)(loc_end - path)) == 0)
                break;
        }
        PyObject *name = code_len ? PyBytes_FromStringAndSize((const char *)r + code, code_len)
                                  : Py_BuildValue("(s#y#)", sev, sev_len, (const char *)r + msg, (Py_ssize_t)(e - msg));
        if (!name) goto done;
        PyObject *key = PyDict_GetItemWithError(rust_keys, name);
        Py_DECREF(name);
        if (!key) {
            if (PyErr_Occurred()) goto done;
            break;
        }
        long key_n = PyLong_AsLong(key), sev_n = diag_key_id(key_ids, keys, (const unsigned char *)sev, 0, sev_len);
        long path_n = sev_n < 0 ? -1 : diag_bytes_id(path_ids, paths, r, path, path_end);
        if ((key_n == -1 && PyErr_Occurred()) || sev_n < 0 || path_n < 0) goto done;
        PyObject *loc = PyBytes_FromStringAndSize((const char *)r + path, loc_end - path);
        if (!loc || PyList_Append(locs, loc) < 0) {
            Py_XDECREF(loc);
            goto done;
        }
        Py_DECREF(loc);
        kd[k] = 0;
        kd[k + 1] = 1;
        Py_ssize_t d = k + 2, last = k + 1;
        detailed = 0;
        if (d < n && ((cl[d] >= 1 && cl[d] <= 3) || cl[d] == 5)) {  /* its details (_rust_details) */
            int bracket = 0;  /* a [code] before the head line's first colon */
            for (Py_ssize_t x = s; x < e && r[x] != ':'; x++)
                if (r[x] == '[') bracket = 1;
            for (; d < stop && ((cl[d] >= 1 && cl[d] <= 3) || cl[d] == 5); d++) {
                kd[d] = 2;
                if (cl[d] != 5 || bracket) continue;
                int64_t ls = item_at(&b[0], d), le = item_at(&b[1], d);
                if (ls < 0 || le < ls || le > raw.len) {
                    PyErr_SetString(PyExc_ValueError, "diag_rust_run: a line out of range");
                    goto done;
                }
                if (le > ls && r[le - 1] == '\n') le--;
                Py_ssize_t from, to;
                if (!diag_lint(r + ls, le - ls, &from, &to)) continue;
                long lint = diag_key_id(key_ids, keys, r, ls + from, ls + to);
                if (lint < 0) goto done;
                if (nk >= cap_k) {
                    cap_k *= 2;
                    if (_PyBytes_Resize(&out[6], cap_k * 8) < 0) goto done;
                    col[6] = (int32_t *)PyBytes_AS_STRING(out[6]);
                }
                col[6][2 * nk] = (int32_t)m;
                col[6][2 * nk + 1] = (int32_t)lint;
                nk++;
            }
            last = d - 1;
            detailed = 1;
        }
        col[0][m] = (int32_t)k;
        col[1][m] = (int32_t)last;
        col[2][m] = (int32_t)key_n;
        col[3][m] = (int32_t)sev_n;
        col[4][m] = (int32_t)path_n;
        col[5][m] = (int32_t)(msg - s);
        m++;
        k = detailed ? d : k + 2;
    }
    for (int x = 0; x < 6; x++)
        if (_PyBytes_Resize(&out[x], m * 4) < 0) goto done;
    if (_PyBytes_Resize(&out[6], nk * 8) < 0) goto done;
    result = Py_BuildValue("nOOOOOOOOi", k, out[0], out[1], out[2], out[3], out[4], out[5], locs, out[6], detailed);
done:
    Py_XDECREF(locs);
    for (int x = 0; x < 7; x++) Py_XDECREF(out[x]);
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&raw);
    PyBuffer_Release(&classes);
    PyBuffer_Release(&kind);
    return result;
}

/* ---- end of the indented entries block ---- */

static PyMethodDef methods[] = {
    {"pair_brackets", pair_brackets, METH_VARARGS, "pair_brackets(buf, start, stop, wide=True) -> (opens, closes, end)"},
    {"words", words, METH_O, "words(shape) -> the word-level template key"},
    {"lines_with", lines_with, METH_VARARGS, "lines_with(ids, flags) -> line indexes whose shape is flagged"},
    {"status_lines", status_lines, METH_VARARGS, "status_lines(buf, starts, lines) -> the lines holding a 4xx/5xx status"},
    {"mask", mask, METH_O, "mask(shape) -> the shape with id-like tokens replaced by '#'"},
    {"mask_numbers", mask_numbers, METH_O, "mask_numbers(buf) -> signals.NUMBERS_RE.sub(b'#', buf)"},
    {"first_template", first_template, METH_VARARGS,
     "first_template(buf, starts, ends) -> int64 index of the first span of the same signal template of each"},
    {"verbatim_lines", verbatim_lines, METH_VARARGS,
     "verbatim_lines(ids, firsts, stops, n, nshapes) -> (int64 lines of the blocks, a flag a line, int64 lines of each shape)"},
    {"take", take, METH_VARARGS, "take(values, indexes) -> int64 values[i] of each int64 index"},
    {"next_shapes", next_shapes, METH_VARARGS, "next_shapes(ids, firsts, n) -> int32 distinct shapes of the lines after firsts"},
    {"traced_heads", traced_heads, METH_VARARGS,
     "traced_heads(ids, starts, firsts, n, flags) -> (int64 firsts whose next line is of a flagged shape, int64 firsts + 1)"},
    {"scatter", scatter, METH_VARARGS, "scatter(target, indexes, values): target[i] = a byte of values (or values) for each int32 index"},
    {"release_memory", release_memory, METH_NOARGS, "release_memory(): free memory of the C library handed back to the system (glibc)"},
    {"join_lines", join_lines, METH_VARARGS, "join_lines(buf, starts, lines) -> (the int64-named lines joined by newlines, int64 begins)"},
    {"template_groups", template_groups, METH_VARARGS,
     "template_groups(buf, starts, order, last_nl) -> (int32 group of each line, int32 lines of each group, int64 bounds, int64 spans)"},
    {"equal_groups", equal_groups, METH_VARARGS,
     "equal_groups(buf, starts, lines, digits_alike) -> (int32 group of each line named, int64 place of each group's first)"},
    {"gather", gather, METH_VARARGS, "gather(table, ids) -> bytes: table[id] of each int32 id"},
    {"sha256_pair", sha256_pair, METH_VARARGS,
     "sha256_pair(a, b, starts, ends) -> (sha256 digest of a, of b's spans joined), or None without SHA-NI"},
    {"first_equal", first_equal, METH_VARARGS,
     "first_equal(buf, starts, ends, digits_alike, body, rstrip) -> int64 index of the first equal span of each span"},
    {"scan", scan, METH_VARARGS, "scan(buf, mask) -> (starts, ids, shape_data, shape_ends, counts)"},
    {"group_shapes", group_shapes, METH_VARARGS,
     "group_shapes(shape_data, shape_ends, modes, counts[, prev_ids, prev_names]) -> (ids, names, totals)"},
    {"group_classed", group_classed, METH_VARARGS,
     "group_classed(shape_data, shape_ends, modes, counts, classes) -> group_shapes(shape_data, shape_ends, modes, counts)"},
    {"id_classes", id_classes, METH_VARARGS,
     "id_classes(shape_data, shape_ends, check_at) -> (int32 class of each shape, first shapes, their int64 ends) or None"},
    {"mark_rare", mark_rare, METH_VARARGS, "mark_rare(counts, template_of, totals, fold_min, modes, mode) -> marked"},
    {"select", select_visible, METH_VARARGS, "select(ids, template_of, frequent, verbatim) -> visible line indexes"},
    {"line_starts", line_starts, METH_VARARGS, "line_starts(buf, out): int64 offsets into out, each line's start, then the end"},
    {"line_bodies", line_bodies, METH_VARARGS, "line_bodies(buf, starts, out): int64 into out, where each line's text ends"},
    {"diff_lines", diff_lines, METH_O, "diff_lines(buf) -> (starts, kinds) of a diff's lines"},
    {"diff_ranks", diff_ranks, METH_VARARGS, "diff_ranks(text, starts, last_nl) -> (codes, stat_lines)"},
    {"diff_common", diff_common, METH_VARARGS,
     "diff_common(buf, starts, kinds, skip) -> (lines, numbers, signs) of the changed lines of texts both removed and added, or None"},
    {"diff_pieces", diff_pieces, METH_VARARGS,
     "diff_pieces(buf, starts, kinds, keep_n, pure_n, sp_first, sp_end, sp_len) -> a diff plan's pieces as columns, or None"},
    {"changed_lines", changed_lines, METH_VARARGS,
     "changed_lines(buf, limit) -> the first distinct changed lines no line of the other sign repeats, up to limit"},
    {"tier_order", tier_order, METH_VARARGS,
     "tier_order(tiers, ranks, itemsize, tier) -> (int32 lines of the tier stably sorted by rank, how many lead with the first rank)"},
    {"gitlog_splice", gitlog_splice, METH_VARARGS,
     "gitlog_splice(raw, offset, kinds, starts, ends, objs, first, stop, over_k, over_text, split, sig_starts, sig_ends, group, pos, "
     "line_ends) -> a patch's pieces as the git log's plan takes them, or None"},
    {"place_matches", place_matches, METH_VARARGS,
     "place_matches(offsets, starts, ends, matches, line_starts, bodies) -> (pieces, lines, inside) of the matches"},
    {"render_view", render_view, METH_VARARGS,
     "render_view(raw, kinds, starts, ends, objs, placeholder, vstarts) -> the visible text (vstarts: where each piece starts) or None"},
    {"text_runs", text_runs, METH_VARARGS,
     "text_runs(buf, repeat_min, block_max, block_work) -> (starts, first_ends, ends, copies, periods)"},
    {"text_cuts", text_cuts, METH_O, "text_cuts(buf) -> (starts, ends, trailing, blank) of the whitespace cut"},
    {"line_of", line_of, METH_VARARGS, "line_of(starts, offsets) -> int64 bisect_right(starts, offset) - 1 of each"},
    {"text_pieces", text_pieces, METH_VARARGS,
     "text_pieces(buf, starts, first_ends, ends, copies, periods, cut_starts, cut_ends, tags) -> pieces or None"},
    {"blank_lines", blank_lines, METH_O, "blank_lines(buf) -> int64 indexes of the lines bytes.strip() empties"},
    {"search_lines", search_lines, METH_VARARGS,
     "search_lines(buf, numbered, good) -> (starts, tails, kinds, pids, paths, (plain_todo, context_todo))"},
    {"plain_text", plain_text, METH_VARARGS, "plain_text(buf, marker) -> -1: a byte not printable ASCII, tab or newline; else marker in buf"},
    {"count_newlines", count_newlines, METH_VARARGS, "count_newlines(buf, start, end) -> buf.count(b'\\n', start, end)"},
    {"long_lines", long_lines, METH_VARARGS, "long_lines(buf, limit, skip) -> int64 (start, end) of the lines over limit"},
    {"blame_columns", blame_columns, METH_VARARGS,
     "blame_columns(buf, starts) -> (int64 code column of each default-form blame line or -1, widest line number)"},
    {"diag_heads", diag_heads, METH_O,
     "diag_heads(buf) -> (lines, at, loc, flags, rest_ids, rests, path_ids, paths) of its path:line:col lines"},
    {"diag_codes", diag_codes, METH_VARARGS, "diag_codes(key, rank, plain, group_of, examples) -> a code a diagnostic"},
    {"diag_runs", diag_runs, METH_VARARGS,
     "diag_runs(codes, first, stop, heads, lasts, starts, ends) -> (run_codes, firsts, run_starts, run_ends)"},
    {"diag_ranks", diag_ranks, METH_VARARGS, "diag_ranks(key, nkeys) -> (rank, order, firsts, counts) of each key's diagnostics"},
    {"diag_columns", diag_columns, METH_VARARGS,
     "diag_columns(rest_ids, path_ids, at, flags, keys, sevs, skips, gnus, path_of) -> (key, severity, path, style, message)"},
    {"source_lines", source_lines, METH_VARARGS,
     "source_lines(buf, max_len, numbered, tests, clauses) -> (lines, int64 records of each group's lines)"},
    {"diag_lines", diag_lines, METH_O, "diag_lines(buf) -> a class a line (blank, snippet, help/note, rustc head, other)"},
    {"diag_line_runs", diag_line_runs, METH_VARARGS,
     "diag_line_runs(codes, first, stop, starts, ends) -> (run_codes, run_starts, run_ends) of lines"},
    {"diag_fill", diag_fill, METH_VARARGS, "diag_fill(lines, codes, heads, lasts, low, high): each coded diagnostic's lines set to its code"},
    {"diag_offsets", diag_offsets, METH_O, "diag_offsets(buf) -> uint32 offsets of each line's start, then the end"},
    {"diag_stylish", diag_stylish, METH_VARARGS,
     "diag_stylish(buf, starts, ends, classes, first, stop, combos, messages) -> (stop, combo_ids, message_ids) of stylish entries"},
    {"diag_indented", diag_indented, METH_VARARGS,
     "diag_indented(buf, starts, ends, classes, first, stop) -> (stop, int64 columns) of indented path:line:col lines"},
    {"diag_elaborations", diag_elaborations, METH_VARARGS,
     "diag_elaborations(buf, starts, ends, cols, first, indent) -> a byte a line of diag_indented's columns: its reading as a part"},
    {"diag_bulk", diag_bulk, METH_VARARGS,
     "diag_bulk(lines, ok, classes, buf, starts, ends, style, path, paths, kind, h) -> (stop, int64 pairs) of location lines and details"},
    {"diag_rust_details", diag_rust_details, METH_VARARGS,
     "diag_rust_details(buf, starts, ends, classes, kind, first, stop) -> (stop, int64 pairs) of rustc's details and the lints they name"},
    {"diag_place_sizes", diag_place_sizes, METH_VARARGS,
     "diag_place_sizes(buf, starts, ends, heads, path, style, js, paths, stylish) -> uint32 the size of each place"},
    {"diag_places", diag_places, METH_VARARGS,
     "diag_places(buf, starts, ends, heads, path, style, js, paths, stylish) -> a list of the places"},
    {"diag_indented_unknown", diag_indented_unknown, METH_VARARGS,
     "diag_indented_unknown(buf, cols, made) -> int32 the location lines whose text made does not have"},
    {"diag_indented_known", diag_indented_known, METH_VARARGS,
     "diag_indented_known(buf, cols, reads, j, first, dash, made, path_ids, paths) -> (stop, gots, heads, lasts, path_ids, styles, "
     "kinds, first_last, dash) of the indented entries read without Python"},
    {"diag_rust_run", diag_rust_run, METH_VARARGS,
     "diag_rust_run(buf, starts, ends, classes, kind, first, stop, rust_keys, key_ids, keys, path_ids, paths) -> (stop, heads, lasts, "
     "keys, severities, paths, messages, locs, rekeys, detailed) of rustc's diagnostics read a run at a time"},
    {"diag_pads", diag_pads, METH_VARARGS, "diag_pads(buf, start, end, least, keep) -> int64 (from, to) of each padding run"},
    {"diag_shown", diag_shown, METH_VARARGS,
     "diag_shown(buf, starts, ends, heads, lasts, least, keep) -> uint32 each span's size less its padding runs"},
    {"diag_tsc_heads", diag_tsc_heads, METH_VARARGS,
     "diag_tsc_heads(buf, starts, ends, classes, first, stop, combos, paths) -> (stop, combo_ids, path_ids, locs, messages)"},
    {"diag_line_pieces", diag_line_pieces, METH_VARARGS,
     "diag_line_pieces(codes, first, stop, starts, ends, buf, padded, pad, least, keep) -> (codes, starts, ends) of pieces"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) {
#ifdef SHA_PAIR
    __builtin_cpu_init();
    sha_pair_ok = __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
#endif
#ifdef SHAPE_PEXT
    /* pext where it is fast: every CPU with BMI2 but AMD's before Zen 3 (microcoded there; Zen 3 was
     * AMD's first with VPCLMULQDQ) */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("bmi2") && (!__builtin_cpu_is("amd") || __builtin_cpu_supports("vpclmulqdq")))
        shape_into = shape_into_pext;
#endif
    return PyModule_Create(&module);
}

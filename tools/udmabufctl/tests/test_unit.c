// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Host unit tests of udmabufctl's parsers and formatters (no kernel; the
 * formatting of the library's entries is test-cli.sh's). Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enomem.h"
#include "output.h"
#include "udmabufctl.h"

static int tests, failures;

/* One TAP line; the description must not contain newlines. */
#define CHECK(cond, ...) do {						\
		int _ok = !!(cond);					\
									\
		tests++;						\
		failures += !_ok;					\
		printf("%s %d - ", _ok ? "ok" : "not ok", tests);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		if (!_ok)						\
			printf("#   failed at %s:%d: %s\n", __FILE__,	\
			       __LINE__, #cond);			\
	} while (0)

/* Show a multi-line output as TAP comments. */
static void diag(const char *out)
{
	const char *p = out;

	while (p && *p) {
		size_t n = strcspn(p, "\n");

		printf("#   | %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

#define CHECK_OUT(out, want, name) do {					\
		const char *_out = (out), *_want = (want);		\
		int _same = !strcmp(_out, _want);			\
									\
		CHECK(_same, "%s", name);				\
		if (!_same) {						\
			printf("#   got:\n");				\
			diag(_out);					\
			printf("#   expected:\n");			\
			diag(_want);					\
		}							\
	} while (0)

/* Printable form of a test input for TAP descriptions (4 rotating buffers). */
static const char *vis(const char *s)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];
	size_t i = 0;

	for (; *s && i < sizeof(bufs[0]) - 5; s++) {
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			i += (size_t)sprintf(b + i, "\\x%02x", (unsigned char)*s);
		else
			b[i++] = *s;
	}
	b[i] = '\0';
	return b;
}

static void test_modes(void)
{
	unsigned int m = 1;

	CHECK(parse_mode("0600", &m) == 0 && m == 0600, "mode 0600");
	CHECK(parse_mode("644", &m) == 0 && m == 0644, "mode 644");
	CHECK(parse_mode("0", &m) == 0 && m == 0, "mode 0");
	CHECK(parse_mode("0777", &m) == 0 && m == 0777, "mode 0777");
	CHECK(parse_mode("1777", &m) == -ERANGE, "mode 1777 out of range");
	CHECK(parse_mode("00000000000600", &m) == -ERANGE,
	      "mode with too many digits");
	CHECK(parse_mode("0800", &m) == -EINVAL, "mode 0800 not octal");
	CHECK(parse_mode("rw", &m) == -EINVAL, "mode 'rw'");
	CHECK(parse_mode("", &m) == -EINVAL, "mode ''");
	CHECK(parse_mode("-600", &m) == -EINVAL, "mode -600");
}

static void test_longs(void)
{
	long v = 0;

	CHECK(parse_long("7", 0, 7, &v) == 0 && v == 7, "long 7 in 0..7");
	CHECK(parse_long("-1", -1, 9, &v) == 0 && v == -1, "long -1");
	CHECK(parse_long("99999999999999999999999", 0, 7, &v) == -ERANGE,
	      "long overflow");
	CHECK(parse_long("1x", 0, 7, &v) == -EINVAL, "long garbage");
	CHECK(parse_long("", 0, 7, &v) == -EINVAL, "long empty");
	CHECK(parse_long(" 1", 0, 7, &v) == -EINVAL, "long leading space");
	CHECK(parse_long("0x10", 0, 100, &v) == -EINVAL, "long is decimal");
}

static void human_is(uint64_t b, const char *want)
{
	char buf[32];

	human_size(b, buf, sizeof(buf));
	CHECK(!strcmp(buf, want), "human %" PRIu64 " = %s (got %s)", b, want, buf);
}

static void test_human(void)
{
	human_is(0, "0B");
	human_is(1023, "1023B");
	human_is(1024, "1K");
	human_is((1 << 20) + 1, "1M");
	human_is((UINT64_C(1) << 30) * 3 / 2, "1.5G");
	human_is((UINT64_C(1) << 20) * 1023 + (UINT64_C(1) << 20) * 99 / 100, "1024M");
	human_is(UINT64_C(1) << 40, "1T");
	human_is(UINT64_MAX, "16E");
}

/* Run a formatter into a string. */
#define CAPTURE(buf, stmt) do {						\
		size_t _len;						\
		FILE *f = open_memstream(&(buf), &_len);		\
		stmt;							\
		fclose(f);						\
	} while (0)

static void utf8_is(const char *in, const char *want)
{
	char out[64];

	utf8_sanitize(in, out, sizeof(out));
	CHECK(!strcmp(out, want), "UTF-8 of '%s' is '%s' (got '%s')", vis(in),
	      vis(want), vis(out));
}

/* JSON is UTF-8: bytes that are not become U+FFFD (EF BF BD). */
static void test_utf8_sanitize(void)
{
	char out[4];

	utf8_is("abc", "abc");
	utf8_is("", "");
	utf8_is("a\"b\\\n\t", "a\"b\\\n\t");
	utf8_is("caf\xc3\xa9", "caf\xc3\xa9");
	utf8_is("\xe2\x82\xac", "\xe2\x82\xac");
	utf8_is("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	utf8_is("a\xff\x62", "a\xef\xbf\xbd\x62");	/* \x62 is b: "\xffb" would be one escape */
	utf8_is("\xc3", "\xef\xbf\xbd");
	utf8_is("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");		/* overlong */
	utf8_is("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");	/* surrogate */
	utf8_sanitize("ab\xc3\xa9", out, sizeof(out));
	CHECK(!strcmp(out, "ab"), "UTF-8 sanitizing cuts whole characters only");
}

static void test_raw_escape(void)
{
	char *out = NULL, buf[64];

	CAPTURE(out, raw_escape(f, "a b\\c\td\xff"));
	CHECK(!strcmp(out, "a\\x20b\\x5cc\\x09d\\xff"), "raw escape (got %s)", out);
	strcpy(buf, out);
	free(out);
	CHECK(raw_unescape(buf) == 0 && !strcmp(buf, "a b\\c\td\xff"),
	      "raw unescape round trip");
	strcpy(buf, "bad\\q");
	CHECK(raw_unescape(buf) == -EINVAL, "raw unescape refuses \\q");
	strcpy(buf, "bad\\x2");
	CHECK(raw_unescape(buf) == -EINVAL, "raw unescape refuses short \\x");
	strcpy(buf, "nul\\x00");
	CHECK(raw_unescape(buf) == -EINVAL, "raw unescape refuses NUL");
}

/* -o: column names, and the names a shell can take (-y) */
static void test_columns(void)
{
	char buf[64];
	int ids[64];
	size_t n = 0;
	const char *bad = NULL;

	CHECK(parse_columns("name,Size", ids, 64, &n, &bad) == 0 && n == 2 &&
	      ids[0] == COL_NAME && ids[1] == COL_SIZE_, "-o name,Size");
	CHECK(parse_columns("allocator", ids, 64, &n, &bad) == 0 && n == 1 &&
	      ids[0] == COL_ALLOCATOR && !columns[COL_ALLOCATOR].is_default &&
	      columns[COL_ALLOCATOR].fields == UDMABUF_FIELD_ALLOCATOR,
	      "-o allocator, not a default column, reads only the allocator");
	n = default_columns(ids, 64);
	CHECK(!(columns_fields(ids, n) & UDMABUF_FIELD_ALLOCATOR),
	      "the default columns do not read the allocator");
	CHECK(parse_columns("", ids, 64, &n, &bad) == -EINVAL, "empty list refused");
	CHECK(parse_columns("NAME,", ids, 64, &n, &bad) == -EINVAL,
	      "trailing comma refused");
	CHECK(parse_columns("NAME,NAME,NAME", ids, 2, &n, &bad) == -E2BIG,
	      "too many columns");

	shell_name("FSUSE%", 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "FSUSE_PCT"), "a trailing %% is _PCT, as libsmartcols has it");
	shell_name("1X", 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "_1X"), "a leading digit gets a '_' before it");
	shell_name("CPU-PHYS-ADDR", 0, buf, 6);
	CHECK(!strcmp(buf, "CPU_P"), "shell name truncated to the buffer");
	CHECK(parse_columns("maj_min,Dma_Addr", ids, 64, &n, &bad) == 0 && n == 2 &&
	      ids[0] == COL_MAJMIN && ids[1] == COL_DMA_ADDR,
	      "-o takes the shell names");
	CHECK(parse_columns("NAM_", ids, 64, &n, &bad) == -EINVAL,
	      "'_' stands only for a character that is no letter or digit");
	CHECK(parse_columns_of(&bench_columns, "op,o_sync,RATIO", ids, 64, &n,
			       &bad) == 0 && n == 3 && ids[0] == BCOL_OP &&
	      ids[1] == BCOL_O_SYNC && ids[2] == BCOL_RATIO,
	      "bench columns by name and shell name");
}

static void test_human_time(void)
{
	static const struct { double ns; const char *want; } t[] = {
		{ 0.4, "0ns" }, { 412, "412ns" }, { 999.4, "999ns" },
		{ 999.6, "1.00us" }, { 3950, "3.95us" }, { 20500, "20.5us" },
		{ 205000, "205us" }, { 1.224e6, "1.22ms" }, { 2.283e9, "2.28s" },
		{ 22.8e9, "22.8s" }, { 1234e9, "1234s" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		human_time(t[i].ns, buf, sizeof(buf));
		CHECK(!strcmp(buf, t[i].want), "human_time(%g) = %s (got %s)",
		      t[i].ns, t[i].want, buf);
	}
}

static void test_bench_table(void)
{
	struct bench_row v[2] = {
		{ .op = "check_buf", .o_sync = 1, .sync_mode = 1,
		  .cache = "write-combine", .size = 1 << 20, .reps = 7,
		  .time = 2283e6 / 9, .min = 250e6, .max = 260e6,
		  .baseline = "malloc", .base_time = 437e6 / 9, .ratio = 5.2243 },
		{ .op = "sync_for_cpu", .sync_mode = 1, .size = 4096, .reps = 3,
		  .time = 1500, .min = 1400, .max = 1600, .baseline = "getppid",
		  .base_time = 100, .ratio = 15 },
	};
	static const int json_cols[] = {
		BCOL_OP, BCOL_O_SYNC, BCOL_CACHE, BCOL_TIME, BCOL_RATE,
		BCOL_BASE_TIME, BCOL_RATIO, BCOL_REPS,
	};
	struct out_opts o = { 0 };
	int cols[NBENCH_COLUMNS];
	size_t n = default_columns_of(&bench_columns, cols, NBENCH_COLUMNS);
	char *out = NULL;

	CHECK(n == 11 && cols[0] == BCOL_OP && cols[10] == BCOL_RATIO,
	      "11 default bench columns, OP..RATIO");
	CAPTURE(out, print_bench(f, v, 2, cols, n, &o));
	CHECK_OUT(out,
		  "OP           O-SYNC SYNC-MODE CACHE         SIZE   TIME    MIN    MAX   RATE BASELINE RATIO\n"
		  "check_buf    1              1 write-combine   1M  254ms  250ms  260ms 3.9M/s malloc   5.224\n"
		  "sync_for_cpu 0              1                 4K 1.50us 1.40us 1.60us 2.5G/s getppid   15.0\n",
		  "bench table (times, rates and ratios human, numbers right)");
	free(out);

	o.json = 1;
	CAPTURE(out, print_bench(f, v + 1, 1, json_cols, 8, &o));
	CHECK_OUT(out,
		  "{\n"
		  "   \"benchmarks\": [\n"
		  "      {\n"
		  "         \"op\": \"sync_for_cpu\",\n"
		  "         \"o-sync\": false,\n"
		  "         \"cache\": null,\n"
		  "         \"time\": 1500,\n"
		  "         \"rate\": 2730666667,\n"
		  "         \"base-time\": 100,\n"
		  "         \"ratio\": 15.0000,\n"
		  "         \"reps\": 3\n"
		  "      }\n"
		  "   ]\n"
		  "}\n",
		  "bench JSON: ns, bytes/s, four decimals, null for no CACHE");
	free(out);
}

/*
 * The sync checker's words: what test-cli.sh's --sync-check, SYNC-CHECK and
 * save line do not show.
 */
static void test_sync_check(void)
{
	CHECK(!strcmp(sync_check_name(0), "off"), "sync_check_name: 0 is off");
	CHECK(parse_sync_check("Report") == -EINVAL && parse_sync_check("") == -EINVAL &&
	      parse_sync_check(NULL) == -EINVAL,
	      "parse_sync_check takes the words only");
}

static void test_conf(void)
{
	char line[256], *tok[8];

	strcpy(line, "odd\\x20name\"x size=1536\tminor=5  # comment\n");
	CHECK(conf_split(line, tok, 8) == 3 && !strcmp(tok[0], "odd name\"x") &&
	      !strcmp(tok[1], "size=1536") && !strcmp(tok[2], "minor=5"),
	      "split a save line");
	strcpy(line, "a b c d");
	CHECK(conf_split(line, tok, 3) == -E2BIG, "too many tokens");
	strcpy(line, "a\\zz size=1");
	CHECK(conf_split(line, tok, 8) == -EINVAL, "bad escape");
}

/* parse_buddyinfo() of TEXT; -errno, else the block in pages. */
static long long buddy(const char *text, int mask)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int64_t largest = -1;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = parse_buddyinfo(f, mask, &largest);
	fclose(f);
	return ret ? ret : largest / sysconf(_SC_PAGESIZE);
}

static void test_buddyinfo(void)
{
	/*
	 * an amd64 guest: DMA's largest order is 10, DMA32's 9, Normal's 8;
	 * the kernel ends each line with a space (\x20)
	 */
	static const char x86[] =
		"Node 0, zone      DMA      0      0      0      0      0"
		"      0      0      0      1      1      3\x20\n"
		"Node 0, zone    DMA32      1      1      4      2      5"
		"      4      3      3      4      2      0\x20\n"
		"Node 0, zone   Normal   1376   1276   1468    985    626"
		"    190     84    213    219      0      0\x20\n";
	static const char normal_only[] =
		"Node 0, zone   Normal    12     3     0     1     0"
		"     0     0     0     0     0     0\n"
		"Node 1, zone   Normal     0     0     0     0     0"
		"     0     0     0     0     1     0\n";
	static const char full[] =
		"Node 0, zone    DMA32      0      0      0      0      0"
		"      0      0      0      0      0      0\x20\n"
		"Node 0, zone   Normal      5      0      0      0      0"
		"      0      0      0      0      0      0\x20\n";
	static const char high_only[] =
		"Node 0, zone   Normal      0      0      0      0      0"
		"      0      0      0      0      0      0\x20\n"
		"Node 0, zone  Movable      0      0      0      0      0"
		"      0      0      7      0      0      0\x20\n"
		"Node 0, zone    DMA32      0      0      1      0      0"
		"      0      0      0      0      0      0\x20\n";

	CHECK(buddy(x86, 64) == 1024, "buddyinfo: 64-bit mask, largest order of any zone (10: DMA)");
	CHECK(buddy(strchr(x86, '\n') + 1, 64) == 512,
	      "buddyinfo: 64-bit mask without DMA: DMA32's order 9 beats Normal's 8");
	CHECK(buddy(strchr(x86, '\n') + 1, 32) == 512,
	      "buddyinfo: 32-bit mask: DMA and DMA32 only");
	CHECK(buddy(high_only, 64) == 128, "buddyinfo: Movable counts for a 64-bit mask");
	CHECK(buddy(high_only, 32) == 4,
	      "buddyinfo: a 32-bit mask does not reach Normal or Movable");
	CHECK(buddy(normal_only, 32) == 512,
	      "buddyinfo: without DMA32 (32-bit kernels) a 32-bit mask has Normal, of every node");
	CHECK(buddy(full, 64) == 1, "buddyinfo: single pages free is a block of one page");
	CHECK(buddy(full, 32) == 0, "buddyinfo: nothing free below a 32-bit mask is a block of 0");
	CHECK(buddy("Node 0, zone  HighMem 3 3 3\n", 32) == -ENODATA,
	      "buddyinfo: no zone for buffers is unknown");
	CHECK(buddy("", 64) == -ENODATA, "buddyinfo: an empty file is unknown");
}

static void test_meminfo(void)
{
	static const char with[] =
		"MemTotal:        4015436 kB\nMemFree:         3700000 kB\n"
		"CmaTotal:          65536 kB\nCmaFree:           61440 kB\n";
	static const char without[] = "MemTotal:        4015436 kB\nMemFree:  1 kB\n";
	struct mem_limits m = { 7, 7, 7, 7, 7 };
	FILE *f;

	f = fmemopen((void *)with, strlen(with), "r");
	parse_meminfo(f, &m);
	fclose(f);
	CHECK(m.mem_total == 4015436LL * 1024 && m.cma_total == 64 << 20 &&
	      m.cma_free == 60 << 20 && m.largest_block == 7,
	      "meminfo: MemTotal, CmaTotal and CmaFree in bytes");
	f = fmemopen((void *)without, strlen(without), "r");
	parse_meminfo(f, &m);
	fclose(f);
	CHECK(m.mem_total == 4015436LL * 1024 && m.cma_total == -1 &&
	      m.cma_free == -1, "meminfo: no Cma lines (no CMA in the kernel) is -1");
}

static void test_enomem_hint(void)
{
	struct mem_limits none = { 4 << 20, 4LL << 30, 0, 0, -1 };
	struct mem_limits cma = { 2 << 20, 4LL << 30, 64 << 20, 60 << 20, -1 };
	struct mem_limits unknown = { -1, -1, -1, -1, -1 };
	struct mem_limits run = { 4 << 20, 4LL << 30, 0, 0, 2976LL << 20 };
	char what[512], fix[256];

	enomem_hint_text(1ULL << 40, 64, &none, what, sizeof(what), fix, sizeof(fix));
	CHECK_OUT(what, "no 1T of contiguous memory within the 64-bit DMA mask: the page allocator's largest free block is 4M and there is no CMA area",
		  "ENOMEM hint: the size, the mask, the largest free block, no CMA");
	CHECK_OUT(fix, "try a smaller size: 1T is more than the 4G of RAM",
		  "ENOMEM hint: more than RAM asks for less");
	enomem_hint_text(1ULL << 30, 64, &none, what, sizeof(what), fix, sizeof(fix));
	CHECK_OUT(fix, "try a smaller size or cma=SIZE at boot (a CMA area)",
		  "ENOMEM hint: a 64-bit mask without CMA: smaller or cma=");
	enomem_hint_text(256 << 20, 32, &cma, what, sizeof(what), fix, sizeof(fix));
	CHECK_OUT(what, "no 256M of contiguous memory within the 32-bit DMA mask: the page allocator's largest free block is 2M and the CMA area has 60M of 64M free",
		  "ENOMEM hint: the CMA area's size and free space");
	CHECK_OUT(fix, "try a smaller size, a larger cma=SIZE at boot or --dma-mask 64 if the device can address all memory",
		  "ENOMEM hint: a mask below 64 suggests --dma-mask 64, CMA a larger one");
	enomem_hint_text(8ULL << 30, 64, &run, what, sizeof(what), fix, sizeof(fix));
	CHECK_OUT(what, "no 8G of contiguous memory within the 64-bit DMA mask: the page allocator's largest free block is 4M, the longest free or movable range 2.9G and there is no CMA area",
		  "ENOMEM hint: the kernel's longest range, where it logged one");
	enomem_hint_text(1ULL << 30, 40, &unknown, what, sizeof(what), fix, sizeof(fix));
	CHECK_OUT(what, "no 1G of contiguous memory within the 40-bit DMA mask (see dmesg): there is no CMA area",
		  "ENOMEM hint: without /proc it says what it knows and points at dmesg");
}

/* parse_enomem_record() of REC for DEV: -errno, else KiB. */
static long long enomem_rec(const char *rec, const char *dev)
{
	int64_t range = -1;
	int ret = parse_enomem_record(rec, dev, &range);

	return ret ? ret : range / 1024;
}

static void test_enomem_record(void)
{
	static const char line[] =
		"6,1234,56789012,-;udmabuf_cfs: huge: no 8388608 KiB of contiguous memory "
		"below 0xffffffffffffffff: page allocator's largest free block 4096 KiB, "
		"CMA 0 KiB free, largest free or movable range 3047424 KiB; "
		"try a smaller size, cma=SIZE at boot\n"
		" SUBSYSTEM=udmabuf\n";
	static const char other[] =
		"6,1235,56789013,-;udmabuf_cfs: huge2: no 8388608 KiB of contiguous memory "
		"below 0xffffffff: page allocator's largest free block 4096 KiB, "
		"CMA 0 KiB free, largest free or movable range 0 KiB; "
		"try a smaller size, cma=SIZE at boot or dma_mask=64\n";

	CHECK(enomem_rec(line, "huge") == 3047424, "kmsg: the range of the device's line");
	CHECK(enomem_rec(line, "hug") == -ENOENT, "kmsg: another device's line (a prefix of the name)");
	CHECK(enomem_rec(other, "huge") == -ENOENT, "kmsg: another device's line (the name a prefix)");
	CHECK(enomem_rec(other, "huge2") == 0, "kmsg: a range of 0 is a range");
	CHECK(enomem_rec("6,1,2,-;udmabuf_cfs: huge: no 4 KiB: something else\n",
			 "huge") == -ENOENT,
	      "kmsg: a line without the range");
	CHECK(enomem_rec("6,1,2,-;other: huge: no 1 KiB, largest free or movable range 5 KiB\n",
			 "huge") == -ENOENT,
	      "kmsg: another module's line");
	CHECK(enomem_rec("udmabuf_cfs: huge: no 1 KiB, largest free or movable range 5 KiB\n",
			 "huge") == -ENOENT,
	      "kmsg: not a record");
	CHECK(enomem_rec("6,1,2,-;udmabuf_cfs: huge: no 1 KiB, "
			 "largest free or movable range 99999999999999999999 KiB\n",
			 "huge") == -ENOENT,
	      "kmsg: a range that does not fit is none");
}

int main(void)
{
	test_modes();
	test_longs();
	test_human();
	test_utf8_sanitize();
	test_raw_escape();
	test_columns();
	test_human_time();
	test_bench_table();
	test_sync_check();
	test_conf();
	test_buddyinfo();
	test_meminfo();
	test_enomem_hint();
	test_enomem_record();
	printf("1..%d\n", tests);
	if (failures)
		printf("# %d of %d tests failed\n", failures, tests);
	return failures ? 1 : 0;
}

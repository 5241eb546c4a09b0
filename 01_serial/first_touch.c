/* first_touch.c - see first_touch.h. One buffer at a time, from one test thread. */
#define _GNU_SOURCE
#include "first_touch.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
    uintptr_t base;
    size_t bytes, page, pages;
    int *owner; /* per page: the thread id of its first toucher (0: none yet) */
    volatile sig_atomic_t armed;
    struct sigaction before; /* the handler we stand in front of */
} watch;

static size_t round_up(size_t bytes, size_t page) { return (bytes + page - 1) / page * page; }

float *first_touch_alloc(size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, round_up(bytes ? bytes : 1, page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (float *)p;
}

void first_touch_free(float *p, size_t bytes)
{
    if (p) munmap(p, round_up(bytes ? bytes : 1, (size_t)sysconf(_SC_PAGESIZE)));
}

/* A fault in the watched buffer: note the thread, open the page, go on (the access is retried).
 * Anywhere else: the handler before ours takes it (the access faults again, there). */
static void on_fault(int sig, siginfo_t *si, void *context)
{
    (void)sig, (void)context;
    const uintptr_t a = (uintptr_t)si->si_addr;
    if (watch.armed && a >= watch.base && a < watch.base + watch.bytes) {
        const size_t k = (a - watch.base) / watch.page;
        int none = 0;
        __atomic_compare_exchange_n(&watch.owner[k], &none, (int)syscall(SYS_gettid), 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        mprotect((void *)(watch.base + k * watch.page), watch.page, PROT_READ | PROT_WRITE);
        return;
    }
    sigaction(SIGSEGV, &watch.before, NULL);
}

int first_touch_arm(float *p, size_t bytes)
{
    watch.page = (size_t)sysconf(_SC_PAGESIZE);
    watch.base = (uintptr_t)p;
    watch.bytes = round_up(bytes ? bytes : 1, watch.page);
    watch.pages = watch.bytes / watch.page;
    free(watch.owner);
    watch.owner = calloc(watch.pages, sizeof(int));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (!watch.owner || watch.base % watch.page || sigaction(SIGSEGV, &sa, &watch.before) != 0) return -1;
    watch.armed = 1;
    if (mprotect(p, watch.bytes, PROT_NONE) != 0) {
        watch.armed = 0;
        sigaction(SIGSEGV, &watch.before, NULL);
        return -1;
    }
    return 0;
}

int first_touch_disarm(size_t *pages)
{
    mprotect((void *)watch.base, watch.bytes, PROT_READ | PROT_WRITE);
    watch.armed = 0;
    sigaction(SIGSEGV, &watch.before, NULL);
    int threads = 0;
    for (size_t k = 0; k < watch.pages; k++) {
        int seen = watch.owner[k] == 0;
        for (size_t j = 0; j < k && !seen; j++) seen = watch.owner[j] == watch.owner[k];
        threads += !seen;
    }
    if (pages) *pages = watch.pages;
    return threads;
}

/*
 * manager_workers.c — the loader threads: each takes the highest-priority
 * queued slot, reads it without the lock (manager_read.c) and publishes it
 * (manager_load.c); kiln_manager_wait sleeps until they run dry.
 */
#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

bool kiln_manager_wait(kiln_manager *m, uint32_t timeout_ms) {
    if (m == NULL)
        return true;
    pthread_mutex_lock(&m->lock);
    if (m->thread_count > 0 && !mgr_loaders_idle(m) && timeout_ms > 0) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += (time_t)(timeout_ms / 1000u);
        deadline.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        m->idle_waiters++;
        while (!mgr_loaders_idle(m) &&
               pthread_cond_timedwait(&m->idle, &m->lock, &deadline) != ETIMEDOUT) {
        }
        m->idle_waiters--;
    }
    bool idle = m->thread_count == 0 || mgr_loaders_idle(m);
    pthread_mutex_unlock(&m->lock);
    return idle;
}

static void *worker_main(void *arg) {
    kiln_manager *m = arg;
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->stop && m->heap_count == 0)
            pthread_cond_wait(&m->work, &m->lock);
        if (m->stop)
            break;
        uint32_t index = m->heap[0];
        m->loading++;
        mgr_heap_remove(m, index);
        mgr_slot *s = mgr_slot_at(m, index);
        mgr_set_state(s, SLOT_LOADING);
        s->pins++;
        const mgr_mount *mt = mgr_mount_at(m, s->mount);
        pthread_mutex_unlock(&m->lock);
        kiln_result r = mgr_read_slot(m, index, mt);
        pthread_mutex_lock(&m->lock);
        if (s->refs > 0) {
            mgr_publish(m, index, r);
        } else { /* cancelled: out of LOADING for anyone waiting; unpin frees it */
            runtime_fail(&s->error, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "cancelled: no scope holds it any more");
            mgr_fail_slot(m, index);
        }
        mgr_unpin(m, index);
        m->loading--;
        mgr_note_idle(m);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

kiln_result mgr_start_workers(kiln_manager *m, uint32_t count, kiln_error *err) {
    if (count == 0)
        return KILN_OK;
    m->threads = mgr_calloc(m, count, sizeof *m->threads);
    if (m->threads == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    m->thread_capacity = count;
    for (uint32_t i = 0; i < count; i++) {
        if (pthread_create(&m->threads[i], NULL, worker_main, m) != 0) {
            mgr_stop_workers(m);
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager",
                                "cannot start worker %" PRIu32, i);
        }
        m->thread_count = i + 1;
    }
    return KILN_OK;
}

void mgr_stop_workers(kiln_manager *m) {
    if (m->threads == NULL)
        return;
    pthread_mutex_lock(&m->lock);
    m->stop = true;
    pthread_cond_broadcast(&m->work);
    pthread_mutex_unlock(&m->lock);
    for (uint32_t i = 0; i < m->thread_count; i++)
        pthread_join(m->threads[i], NULL);
    mgr_free(m, m->threads, (size_t)m->thread_capacity * sizeof *m->threads);
    m->threads = NULL;
    m->thread_count = 0;
}

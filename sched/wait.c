/* Wait queues: see sched/wait.h. */
#include "sched/wait.h"

#include "kernel/base/percpu.h"
#include "sched/task.h"

void wait_queue_init(struct wait_queue *queue)
{
    spin_lock_init(&queue->lock, "wait_queue");
    queue->head = 0;
}

void wait_prepare(struct wait_queue *queue, struct wait_entry *entry)
{
    spin_lock(&queue->lock);
    if (!entry->queued || entry->task != current_task()) {
        entry->task = current_task();
        entry->next = queue->head;
        entry->queued = true;
        queue->head = entry;
    }
    set_current_state(TASK_SLEEPING);
    spin_unlock(&queue->lock);
}

static void unlink(struct wait_queue *queue, struct wait_entry *entry)
{
    for (struct wait_entry **link = &queue->head; *link; link = &(*link)->next) {
        if (*link == entry) {
            *link = entry->next;
            break;
        }
    }
    entry->queued = false;
}

void wait_add_tail_locked(struct wait_queue *queue, struct wait_entry *entry)
{
    spin_assert_held(&queue->lock);
    struct wait_entry **link = &queue->head;
    while (*link)
        link = &(*link)->next;
    entry->next = 0;
    entry->queued = true;
    *link = entry;
}

void wait_remove_locked(struct wait_queue *queue, struct wait_entry *entry)
{
    spin_assert_held(&queue->lock);
    unlink(queue, entry);
}

void wait_finish(struct wait_queue *queue, struct wait_entry *entry)
{
    set_current_state(TASK_RUNNABLE);
    spin_lock(&queue->lock);
    if (entry->queued)
        unlink(queue, entry);
    spin_unlock(&queue->lock);
}

static unsigned wake(struct wait_queue *queue, bool only_one)
{
    unsigned woken = 0;

    spin_lock(&queue->lock);
    for (struct wait_entry *entry = queue->head; entry; entry = entry->next) {
        if (wake_up_task(entry->task)) {
            woken++;
            if (only_one)
                break;
        }
    }
    spin_unlock(&queue->lock);
    return woken;
}

unsigned wake_up_all(struct wait_queue *queue) { return wake(queue, false); }
unsigned wake_up_one(struct wait_queue *queue) { return wake(queue, true); }

/* Grace-period sequence numbers, as Linux keeps them: the low two bits are
 * the state (0 = no grace period running, 1 = one is running), the rest
 * counts grace periods. Starting a GP adds 1; ending it rounds up to the
 * next multiple of 4. So 8 = "two GPs done, none running", 9 = "the third
 * is running". Comparisons are modular, so the counter may wrap.
 *
 * Pure arithmetic: compiled into the kernel and into the host tests. */
#ifndef RCU_GP_SEQ_H
#define RCU_GP_SEQ_H

#include <stdbool.h>

#define RCU_SEQ_STATE_MASK 3ul
#define RCU_SEQ_STATE_SHIFT 2

static inline unsigned long rcu_seq_state(unsigned long seq)
{
    return seq & RCU_SEQ_STATE_MASK;
}

static inline bool rcu_seq_in_progress(unsigned long seq)
{
    return rcu_seq_state(seq) != 0;
}

/* Grace periods completed so far. */
static inline unsigned long rcu_seq_count(unsigned long seq)
{
    return seq >> RCU_SEQ_STATE_SHIFT;
}

static inline unsigned long rcu_seq_started(unsigned long seq)
{
    return seq + 1;
}

static inline unsigned long rcu_seq_ended(unsigned long seq)
{
    return (seq | RCU_SEQ_STATE_MASK) + 1;
}

/* The value gp_seq will have once a full grace period has run from now:
 * if none is running, the next one's end; if one is running, it may have
 * started before our caller's update, so the end of the one after it. */
static inline unsigned long rcu_seq_snap(unsigned long seq)
{
    return (seq + 2 * RCU_SEQ_STATE_MASK + 1) & ~RCU_SEQ_STATE_MASK;
}

/* a >= b, modulo wrap-around. */
static inline bool rcu_seq_ge(unsigned long a, unsigned long b)
{
    return (long)(a - b) >= 0;
}

/* Has the grace period that snap named ended, now that gp_seq is seq? */
static inline bool rcu_seq_done(unsigned long seq, unsigned long snap)
{
    return rcu_seq_ge(seq, snap);
}

#endif

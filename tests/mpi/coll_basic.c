/* Simple collectives: Barrier (nobody leaves before everybody entered),
 * Bcast, Gather, Allgather, Alltoall, with every root, counts 0, 1, a few
 * hundred and ~1 MiB, MPI_IN_PLACE where allowed, on MPI_COMM_WORLD and on a
 * communicator with reversed rank order.  Reductions are in coll_reduce. */
#include "mtest.h"

static int rank_, size_;

static int val(int src, int i, int salt)
{
    return src * 1000003 + i * 7 + salt;
}

static void barrier_check(MPI_Comm comm)
{
    /* Same node: CLOCK_MONOTONIC is comparable between processes. */
    enum { ITERS = 30 };
    double *enter = mt_malloc((size_t)size_ * sizeof(double));
    double *leave = mt_malloc((size_t)size_ * sizeof(double));
    int bad = 0;
    for (int it = 0; it < ITERS; it++) {
        if (it % size_ == rank_)
            mt_sleep_ms(3); /* one late rank per iteration */
        double t_in = mt_mono_now();
        MT_CALL(MPI_Barrier(comm));
        double t_out = mt_mono_now();
        MT_CALL(MPI_Allgather(&t_in, 1, MPI_DOUBLE, enter, 1, MPI_DOUBLE, comm));
        MT_CALL(MPI_Allgather(&t_out, 1, MPI_DOUBLE, leave, 1, MPI_DOUBLE, comm));
        double max_in = enter[0], min_out = leave[0];
        for (int r = 1; r < size_; r++) {
            if (enter[r] > max_in)
                max_in = enter[r];
            if (leave[r] < min_out)
                min_out = leave[r];
        }
        if (min_out < max_in && !bad) {
            MT_CHECK(min_out >= max_in, "iteration %d: a rank left the barrier %.6f s before "
                     "the last one entered", it, max_in - min_out);
            bad = 1;
        }
    }
    free(enter);
    free(leave);
}

static void bcast_check(MPI_Comm comm, int count, MPI_Datatype dt)
{
    /* dt is MPI_INT or MPI_BYTE; the buffer is sized for ints */
    int *buf = mt_malloc((size_t)count * sizeof(int) + 16);
    for (int root = 0; root < size_; root++) {
        int n = dt == MPI_INT ? count : count * (int)sizeof(int);
        for (int i = 0; i < count; i++)
            buf[i] = rank_ == root ? val(root, i, count) : -1;
        MT_CALL(MPI_Bcast(buf, n, dt, root, comm));
        for (int i = 0; i < count; i++)
            if (buf[i] != val(root, i, count)) {
                MT_CHECK(0, "Bcast count %d root %d: element %d = %d", count, root, i, buf[i]);
                break;
            }
    }
    free(buf);
}

static void gather_check(MPI_Comm comm, int count)
{
    int *s = mt_malloc((size_t)count * sizeof(int) + 4);
    int *r = mt_malloc((size_t)count * (size_t)size_ * sizeof(int) + 4);
    for (int i = 0; i < count; i++)
        s[i] = val(rank_, i, 1);
    for (int root = 0; root < size_; root++) {
        /* normal */
        for (int i = 0; i < count * size_; i++)
            r[i] = -1;
        MT_CALL(MPI_Gather(s, count, MPI_INT, rank_ == root ? r : NULL, count, MPI_INT, root,
                           comm));
        if (rank_ == root)
            for (int src = 0; src < size_; src++)
                for (int i = 0; i < count; i++)
                    if (r[src * count + i] != val(src, i, 1)) {
                        MT_CHECK(0, "Gather count %d root %d: block %d element %d = %d", count,
                                 root, src, i, r[src * count + i]);
                        src = size_;
                        break;
                    }
        /* in place at the root: its own block is already in recvbuf */
        if (rank_ == root) {
            for (int i = 0; i < count * size_; i++)
                r[i] = -1;
            for (int i = 0; i < count; i++)
                r[root * count + i] = val(root, i, 1);
            MT_CALL(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, root, comm));
            for (int src = 0; src < size_; src++)
                for (int i = 0; i < count; i++)
                    if (r[src * count + i] != val(src, i, 1)) {
                        MT_CHECK(0, "Gather IN_PLACE count %d root %d: block %d element %d = %d",
                                 count, root, src, i, r[src * count + i]);
                        src = size_;
                        break;
                    }
        } else {
            MT_CALL(MPI_Gather(s, count, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm));
        }
    }
    free(s);
    free(r);
}

static void allgather_check(MPI_Comm comm, int count)
{
    int *s = mt_malloc((size_t)count * sizeof(int) + 4);
    int *r = mt_malloc((size_t)count * (size_t)size_ * sizeof(int) + 4);
    for (int i = 0; i < count; i++)
        s[i] = val(rank_, i, 2);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < count * size_; i++)
            r[i] = -1;
        if (inplace) {
            for (int i = 0; i < count; i++)
                r[rank_ * count + i] = s[i];
            MT_CALL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, comm));
        } else {
            MT_CALL(MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, comm));
        }
        for (int src = 0; src < size_; src++)
            for (int i = 0; i < count; i++)
                if (r[src * count + i] != val(src, i, 2)) {
                    MT_CHECK(0, "Allgather%s count %d: block %d element %d = %d",
                             inplace ? " IN_PLACE" : "", count, src, i, r[src * count + i]);
                    src = size_;
                    break;
                }
    }
    free(s);
    free(r);
}

static int a2a_val(int from, int to, int i)
{
    return from * 100000 + to * 1000 + i % 1000 + (i / 1000) * 7;
}

static void alltoall_check(MPI_Comm comm, int count)
{
    size_t n = (size_t)count * (size_t)size_;
    int *s = mt_malloc(n * sizeof(int) + 4), *r = mt_malloc(n * sizeof(int) + 4);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int to = 0; to < size_; to++)
            for (int i = 0; i < count; i++)
                s[to * count + i] = a2a_val(rank_, to, i);
        if (inplace) {
            memcpy(r, s, n * sizeof(int));
            MT_CALL(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, comm));
        } else {
            for (size_t i = 0; i < n; i++)
                r[i] = -1;
            MT_CALL(MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, comm));
        }
        for (int from = 0; from < size_; from++)
            for (int i = 0; i < count; i++)
                if (r[from * count + i] != a2a_val(from, rank_, i)) {
                    MT_CHECK(0, "Alltoall%s count %d: block %d element %d = %d",
                             inplace ? " IN_PLACE" : "", count, from, i, r[from * count + i]);
                    from = size_;
                    break;
                }
    }
    free(s);
    free(r);
}

static void run_all(MPI_Comm comm, const char *label)
{
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    (void)label;
    barrier_check(comm);
    int counts[] = { 0, 1, 300, 262144 }; /* 262144 ints = 1 MiB */
    for (int c = 0; c < 4; c++) {
        bcast_check(comm, counts[c], MPI_INT);
        if (c < 3)
            bcast_check(comm, counts[c], MPI_BYTE);
        if (c < 3 || size_ <= 4) {
            gather_check(comm, counts[c] / (c == 3 ? 4 : 1));
            allgather_check(comm, counts[c] / (c == 3 ? 4 : 1));
        }
        alltoall_check(comm, counts[c] / (c == 3 ? 4 * size_ : 1));
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    run_all(MPI_COMM_WORLD, "world");
    MPI_Comm rev;
    MT_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &rev));
    run_all(rev, "reversed");
    MT_CALL(MPI_Comm_free(&rev));
    /* COMM_SELF collectives */
    run_all(MPI_COMM_SELF, "self");
    return mt_finalize();
}

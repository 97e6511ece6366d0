// ---------------------------------------------------------------------------
// sample.cu: neighbour sampling on the device (Device.SampleBlocks) and the
// device-built transposes of sampled blocks (Device.UploadBlocks): an
// exclusive scan of int32 counts, the per-hop sampler (uniform with
// replacement from a counter-based hash, as data.SampleBlocks on the host),
// the relabelling of a hop's sources through an N-sized flag array (mark,
// scan, compact: no sort), the per-row sort that gives the CSR rows in
// gnnlib/graph's order, and the transpose by counting sort (histogram with
// atomics, scan, scatter) with GraphSAGE's mean weights.
// ---------------------------------------------------------------------------

#include "common.cuh"

// sample_hash is data.mix(seed, i): SplitMix64's finaliser of seed + φ·(i+1).
__device__ __forceinline__ unsigned long long sample_hash(unsigned long long seed, unsigned long long i) {
	unsigned long long z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// scan_block: an exclusive scan of in[0, n) in blocks of 1024 (launched with
// 1024 threads a block, one block per 1024 values); each block's total goes
// to sums[block], which the caller scans and adds back with scan_add.
extern "C" __global__ void scan_block(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ sums, int n) {
	__shared__ int s[1024];
	int t = threadIdx.x;
	long long i = (long long)blockIdx.x * 1024 + t;
	int v = i < n ? in[i] : 0;
	s[t] = v;
	__syncthreads();
	for (int off = 1; off < 1024; off <<= 1) {
		int a = t >= off ? s[t - off] : 0;
		__syncthreads();
		s[t] += a;
		__syncthreads();
	}
	if (i < n) out[i] = s[t] - v;
	if (t == 1023) sums[blockIdx.x] = s[1023];
}

// scan_add adds the scanned block totals to each block's values.
extern "C" __global__ void scan_add(int* __restrict__ out, const int* __restrict__ sums, int n) {
	long long i = (long long)blockIdx.x * 1024 + threadIdx.x;
	if (i < n) out[i] += sums[blockIdx.x];
}

// scan_total sets out[n] = *total (the scan's last entry: the sum of all).
extern "C" __global__ void scan_total(int* out, const int* total, int n) { out[n] = *total; }

// The per-hop kernels below run over a bound of the hop's destinations
// (and edges) known on the host before the hop starts: the true counts stay
// on the device (ndstp, nep) and are read back once per batch, so that no
// hop waits for the one before it to come back to the host.

// sample_counts: the number of edges destination i draws: fanout if node
// nodes[i] has in-neighbours (with replacement), none if it has none, all of
// them when fanout is negative; 0 for the bound's slots past *ndstp.
extern "C" __global__ void sample_counts(const int* __restrict__ indptr, const int* __restrict__ nodes,
                                         int* __restrict__ counts, const int* __restrict__ ndstp, int bound,
                                         int fanout) {
	int ndst = *ndstp;
	GRID_LOOP(i, bound) {
		if (i >= ndst) {
			counts[i] = 0;
			continue;
		}
		int v = nodes[i];
		int d = indptr[v + 1] - indptr[v];
		counts[i] = d == 0 ? 0 : (fanout < 0 ? d : fanout);
	}
}

// sample_edges: one thread per destination row draws its edges into src
// (node ids of the whole graph) at rowptr[i].., and marks each drawn node in
// flag. Draw j of row i takes neighbour ⌊h·d/2³²⌋ of the row's d, h the high
// 32 bits of sample_hash(seed, i·fanout + j) (all neighbours in order when
// fanout is negative).
extern "C" __global__ void sample_edges(const int* __restrict__ indptr, const int* __restrict__ indices,
                                        const int* __restrict__ nodes, const int* __restrict__ rowptr,
                                        int* __restrict__ src, int* __restrict__ flag,
                                        const int* __restrict__ ndstp, int bound, int fanout,
                                        unsigned long long seed) {
	int ndst = *ndstp;
	GRID_LOOP(i, bound) {
		if (i >= ndst) break;
		int v = nodes[i];
		int beg = indptr[v];
		unsigned long long d = (unsigned long long)(indptr[v + 1] - beg);
		int o = rowptr[i], k = rowptr[i + 1] - o;
		for (int j = 0; j < k; j++) {
			int r = j;
			if (fanout >= 0) {
				unsigned long long h = sample_hash(seed, (unsigned long long)i * (unsigned long long)fanout + j);
				r = (int)(((h >> 32) * d) >> 32);
			}
			int u = indices[beg + r];
			src[o + j] = u;
			flag[u] = 1;
		}
	}
}

// sample_mark_dst: the hop's destinations start its sources in their order:
// loc[v] = i, and they are not new (flag[v] = 0).
extern "C" __global__ void sample_mark_dst(const int* __restrict__ nodes, int* __restrict__ flag, int* __restrict__ loc,
                                           const int* __restrict__ ndstp, int bound) {
	int ndst = *ndstp;
	GRID_LOOP(i, bound) {
		if (i >= ndst) break;
		int v = nodes[i];
		flag[v] = 0;
		loc[v] = (int)i;
	}
}

// sample_compact: each flagged node v (new to this hop) becomes source
// ndst + pos[v] (pos the exclusive scan of flag: new nodes in id order),
// and its flag is cleared for the next hop.
extern "C" __global__ void sample_compact(int* __restrict__ flag, const int* __restrict__ pos, int* __restrict__ loc,
                                          int* __restrict__ srcnodes, int n, const int* __restrict__ ndstp) {
	int ndst = *ndstp;
	GRID_LOOP(v, n) {
		if (flag[v]) {
			int k = ndst + pos[v];
			loc[v] = k;
			srcnodes[k] = (int)v;
			flag[v] = 0;
		}
	}
}

// sample_sizes (one thread) keeps hop k's counts on the device: cnt[k] is
// its destinations, cnt[k+1] = cnt[k] + *nnew its sources (the next hop's
// destinations) and cnt[hops+1+k] = *ne its edges.
extern "C" __global__ void sample_sizes(const int* ne, const int* nnew, int* cnt, int k, int hops) {
	cnt[k + 1] = cnt[k] + *nnew;
	cnt[hops + 1 + k] = *ne;
}

// sample_relabel maps each edge's source from a node id to its block-local
// index (the first *nep of the bound's slots).
extern "C" __global__ void sample_relabel(int* __restrict__ idx, const int* __restrict__ loc,
                                          const int* __restrict__ nep, int bound) {
	int ne = *nep;
	GRID_LOOP(e, bound) {
		if (e >= ne) break;
		idx[e] = loc[idx[e]];
	}
}

// sort_rows sorts each CSR row's indices (insertion sort, one thread a row:
// the rows of a sampled block are at most a fan-out long).
extern "C" __global__ void sort_rows(const int* __restrict__ rowptr, int* __restrict__ idx, int n) {
	GRID_LOOP(v, n) {
		int b = rowptr[v], e = rowptr[v + 1];
		for (int k = b + 1; k < e; k++) {
			int x = idx[k], j = k - 1;
			while (j >= b && idx[j] > x) {
				idx[j + 1] = idx[j];
				j--;
			}
			idx[j + 1] = x;
		}
	}
}

// block_hist counts each source's edges (the transpose's row lengths).
extern "C" __global__ void block_hist(const int* __restrict__ idx, int* __restrict__ cnt, int ne) {
	GRID_LOOP(e, ne) atomicAdd(&cnt[idx[e]], 1);
}

// block_transpose scatters each edge u -> v to u's row of the transpose
// (tptr the scan of block_hist's counts; cursor zeroed), in no fixed order
// within a row, and writes the mean weights 1/deg(v) in both orders when w
// is not null.
extern "C" __global__ void block_transpose(const int* __restrict__ rowptr, const int* __restrict__ idx,
                                           const int* __restrict__ tptr, int* __restrict__ cursor,
                                           int* __restrict__ tidx, float* __restrict__ w, float* __restrict__ tw, int n) {
	GRID_LOOP(v, n) {
		int b = rowptr[v], e = rowptr[v + 1];
		float m = e > b ? 1.f / (float)(e - b) : 0.f;
		for (int k = b; k < e; k++) {
			int u = idx[k];
			int p = tptr[u] + atomicAdd(&cursor[u], 1);
			tidx[p] = (int)v;
			if (w) {
				w[k] = m;
				tw[p] = m;
			}
		}
	}
}

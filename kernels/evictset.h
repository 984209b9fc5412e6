/* evictset.h - shrink an eviction set (kernels/l1sets.cu, kernels/l1frames.cu):
 * drop groups of it while the rest still evicts the target, 16 groups at a
 * time while it is large, then single members. With LRU sets what is left is
 * as many lines as a set has ways. evicts(rest) runs one test. */
#ifndef GMS_KERNELS_EVICTSET_H
#define GMS_KERNELS_EVICTSET_H

#include <algorithm>
#include <vector>

template <typename Evicts> static std::vector<int> reduce_eviction_set(std::vector<int> set, Evicts evicts)
{
    for (;;) {
        size_t groups = set.size() > 64 ? 16 : set.size();
        size_t step = (set.size() + groups - 1) / groups;
        bool dropped = false;
        for (size_t g = 0; g * step < set.size() && !dropped; ++g) {
            std::vector<int> rest(set.begin(), set.begin() + g * step);
            rest.insert(rest.end(), set.begin() + std::min(set.size(), (g + 1) * step), set.end());
            if (!rest.empty() && evicts(rest)) {
                set.swap(rest);
                dropped = true;
            }
        }
        if (!dropped) return set;
    }
}

#endif

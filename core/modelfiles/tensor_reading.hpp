#pragma once
// Reading named tensors of a checkpoint as float matrices: only their bytes, from whichever
// shard holds each, checked finite. Internal to the readers of a checkpoint (the layer loader,
// the model-input loader and the pretrained model's blocks share it).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/modelfiles/checkpoint_tensor.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv::checkpoint_detail {

// "768x2304", "768", or "a single number".
std::string shapeText(const std::vector<std::size_t>& shape);

// A tensor's values by name: a matrix as stored (rows x cols, row-major), a vector as 1 x n.
using LoadedTensors = std::map<std::string, MatrixF>;

// Reads `names` (all present in `tensors`) from their files, only their bytes. Refuses
// tensors that are not a matrix or a vector, unsupported dtypes, and values that are not finite,
// naming the file, the tensor and the position.
// Those in `transposedNames` (matrices) come transposed: an nn.Linear weight, out x in in the
// file, arrives as the in x out W of y = x W, decoded straight into that order.
Expected<LoadedTensors> readTensors(const CheckpointTensors& tensors, const std::set<std::string>& names,
                                    const std::set<std::string>& transposedNames = {});

// Matrices of a block a run has finished with, handed to the next block's reading. Every block of a
// stack has tensors of the same shapes, so the next block's values are decoded into memory the
// process has already touched: on this VM a fresh 4 KiB page costs ~10 us on first touch, and a
// block of an 8B model in float32 is 0.9 GB (a fault per 4 KiB: ~2 s of system time a block).
class RecycledMatrices {
public:
    void give(MatrixF&& matrix);
    // A rows x cols matrix (values undefined): a given one of that shape, else a fresh one.
    MatrixF take(Index rows, Index cols);
    bool empty() const { return matrices_.empty(); }
    // Every matrix not taken (the pool is left empty).
    std::vector<MatrixF> takeAll() { return std::move(matrices_); }

private:
    std::vector<MatrixF> matrices_;
};

// While one lives, readTensors on this thread takes its matrices from `pool` (one scope per thread).
class RecyclingScope {
public:
    explicit RecyclingScope(RecycledMatrices& pool);
    ~RecyclingScope();
    RecyclingScope(const RecyclingScope&) = delete;
    RecyclingScope& operator=(const RecyclingScope&) = delete;

private:
    RecycledMatrices* previous_;
};

// Asks the system to start reading the stored bytes of every tensor whose name starts with one of
// `prefixes` into its page cache (posix_fadvise WILLNEED), from a short-lived thread of its own
// (queuing the reads may block), and returns at once.
void announceReading(const CheckpointTensors& tensors, const std::vector<std::string>& prefixes);

// A loaded vector (1 x n) as a row.
inline RowVectorF asRow(const MatrixF& loaded) { return loaded.row(0); }

}  // namespace qkv::checkpoint_detail

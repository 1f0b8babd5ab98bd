#pragma once
// The weights editor's actions, each the core's pure edit
// (core/weights/head_edits.hpp) applied to the weights the document's result was computed
// from (result()->unscaledWeights, before the scale sliders) and handed to
// Document::editWeights(): one undo step, recomputed live. Nothing here does arithmetic on
// weights itself.

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/common/expected.hpp"
#include "core/weights/head_edits.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {

// What an edit makes of the current weights.
using HeadEdit = std::function<qkv::Expected<qkv::AttentionWeights>(const qkv::AttentionWeights&)>;

// The weights an edit starts from: the document's result's unscaledWeights; null before the
// first result, and while the current settings are invalid or group the heads differently from
// the result's (an edit finds a head's blocks with the current grouping).
std::shared_ptr<const qkv::AttentionWeights> editableWeights(const Document& document);

// Applies `edit` to `base` (the editable weights when null) and stores the blocks of `heads`
// as one undo step (merged with the previous edit of `key`). Returns false, changing nothing
// and saying why through Document::notice, when there are no editable weights (see above) or
// the edit fails.
bool applyHeadEdit(Document& document, const std::vector<qkv::Index>& heads, const QString& description,
                   const HeadEdit& edit, EditKey key = EditKey::None,
                   std::shared_ptr<const qkv::AttentionWeights> base = nullptr);

// The actions, for `head` (0-based). "All four" blocks: every entry of `matrices`. An edit of
// W^K or W^V under grouped-query attention changes a block that other heads read too: they
// become edited as well (keeping what they show), so that no preset of theirs writes over it.
bool setHeadCell(Document& document, qkv::Index head, qkv::HeadMatrix matrix, qkv::Index row, qkv::Index column,
                 float value);
bool scaleHeadBlocks(Document& document, qkv::Index head, const std::vector<qkv::HeadMatrix>& matrices, float factor);
bool zeroHeadBlocks(Document& document, qkv::Index head, const std::vector<qkv::HeadMatrix>& matrices);
bool swapHeadQueryAndKey(Document& document, qkv::Index head);
bool rerandomiseHeadWeights(Document& document, qkv::Index head, std::uint64_t seed);
bool copyHeadOnto(Document& document, qkv::Index from, qkv::Index to);

// Painting on a small matrix: one stroke is one undo step. begin() takes the editable
// weights; each paint() sets one more entry on the stroke's weights and stores them merged
// with the stroke's previous paint (EditKey::Weights); end() closes the stroke, so the next
// stroke is its own undo step.
class PaintStroke {
public:
    explicit PaintStroke(Document& document) : document_(document) {}
    bool begin(qkv::Index head, qkv::HeadMatrix matrix);
    bool paint(qkv::Index row, qkv::Index column, float value);
    void end();
    bool active() const { return weights_ != nullptr; }
    qkv::HeadMatrix matrix() const { return matrix_; }

private:
    Document& document_;
    std::shared_ptr<const qkv::AttentionWeights> weights_;
    qkv::Index head_ = 0;
    qkv::HeadMatrix matrix_ = qkv::HeadMatrix::Query;
    int painted_ = 0;
    bool alternate_ = false;
};

// Paint only where the block is small enough to hit cells one by one.
constexpr qkv::Index kPaintableModelWidth = 64;

}  // namespace qkv::ui

#pragma once
// The Generate panel's "each new token's attention as it appears": every layer (rows, model
// order) by every head (columns), one small heatmap per head whose rows are the generated tokens
// so far (one row added per token) and whose columns are the tokens so far, prompt then generated.
//
// Row r of head (l, i) is what the run that chose generated token r holds at its last position:
// token r sits at position p = prompt length + r, the run that chose it covers positions 0..p-1,
// so its last row is the attention of the query at p - 1, the position that chose the token (the
// token's own row exists only in the next step's run). Keys p and later are masked in that row
// (neutral grey): the staircase of a causal map.
//
// Fast while tokens arrive: each head keeps its colour image (one pixel per cell, sized for the
// tokens planned), and a new token writes one row of each image; a paint only scales the images.

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <set>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv::ui {

class GenerationAttention : public QWidget {
    Q_OBJECT
public:
    explicit GenerationAttention(QWidget* parent = nullptr);

    // A new generation of up to `plannedTokens` tokens after `promptTokens` (chip texts) by
    // `model`; `headsOff` (model order) are drawn switched off. Clears the rows.
    void begin(const qkv::PretrainedModel& model, QStringList promptTokens, qkv::Index plannedTokens,
               std::set<qkv::ModelHead> headsOff);
    // Nothing to show (no generation yet, or a new prompt).
    void clear();
    // Generated token r = rowCount(): its chip text, and per layer (model order) an h x p matrix
    // whose row i is head i's attention of the position that chose it (p - 1) over keys 0..p-1.
    void addToken(const QString& token, std::vector<qkv::MatrixF> rows);

    qkv::Index layerCount() const { return static_cast<qkv::Index>(headLabels_.size()); }
    qkv::Index headCount() const { return heads_; }
    qkv::Index rowCount() const { return static_cast<qkv::Index>(rows_.size()); }
    // Columns shown: the tokens so far (prompt and generated).
    qkv::Index keyCount() const { return static_cast<qkv::Index>(promptTokens_.size()) + rowCount(); }
    // The weight drawn at (row, key) of a head; NaN where the key is masked or not there.
    float weight(qkv::ModelHead head, qkv::Index row, qkv::Index key) const;
    // A head's colour image (pixel (key, row) for the cell), rows beyond rowCount() unwritten.
    const QImage& cellImage(qkv::ModelHead head) const;
    // The centre of a cell in widget coordinates, and the tooltip there ("" outside the maps).
    QPointF cellCenter(qkv::ModelHead head, qkv::Index row, qkv::Index key) const;
    QString toolTipAt(const QPointF& position) const;

    QSize sizeHint() const override { return {360, 300}; }
    QSize minimumSizeHint() const override { return {200, 140}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Layout;
    Layout layout() const;
    QString headTitle(qkv::ModelHead head) const;
    // The tooltip of cell (row, key) of `head`'s map, HTML.
    QString cellTip(qkv::ModelHead head, qkv::Index row, qkv::Index key) const;
    // «token» (position p), for the tooltip (`html`: escaped) and the screen reader.
    QString tokenAt(qkv::Index position, bool html = true) const;
    // Screen readers: generated tokens (rows) x heads (columns), each cell the key the head's
    // row weighs most (generation_attention.cpp says why).
    void makeAccessibleTable();

    std::vector<QStringList> headLabels_;  // [layer][head]: "1.2" as --ablate names it
    std::vector<QString> layerNames_;      // the layers' module paths, for tooltips
    qkv::Index heads_ = 0;
    QStringList promptTokens_;
    QStringList generatedTokens_;
    qkv::Index plannedTokens_ = 0;
    std::set<qkv::ModelHead> headsOff_;
    std::vector<std::vector<qkv::MatrixF>> rows_;  // [token][layer]: h x p
    std::vector<std::vector<QImage>> images_;      // [layer][head]: (prompt + planned) x planned
};

}  // namespace qkv::ui

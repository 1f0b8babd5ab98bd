#include "ui/weights/head_weight_edits.hpp"

#include <QCoreApplication>

#include <algorithm>

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadWeightEdits)
};

qkv::HeadGrouping groupingOf(const Document& document) { return document.config().grouping(); }

QString blocksText(const std::vector<qkv::HeadMatrix>& matrices, qkv::Index head)
{
    if (matrices.size() == 4) return Text::tr("Head %1's weights").arg(head + 1);
    QStringList names;
    for (const qkv::HeadMatrix m : matrices)
        names << QString::fromUtf8(qkv::headMatrixName(m).data())
                     .replace(QStringLiteral("_i"), QStringLiteral("_%1").arg(head + 1));
    return names.join(QStringLiteral(", "));
}

qkv::Expected<qkv::AttentionWeights> scaleAll(qkv::AttentionWeights weights, const qkv::HeadGrouping& g,
                                              qkv::Index head, const std::vector<qkv::HeadMatrix>& matrices,
                                              float factor)
{
    for (const qkv::HeadMatrix m : matrices) {
        auto scaled = qkv::scaleHeadBlock(weights, g, head, m, factor);
        if (!scaled.ok()) return scaled;
        weights = std::move(scaled.value());
    }
    return weights;
}

// Empty when the result's weights can be edited; otherwise why not. An edit finds a head's
// blocks with the current settings' grouping (d_model, h, g), which must be the one the result
// was computed with: while h is 0 or does not divide d_model, or a new d_model, h or g is still
// being computed, the blocks would be read at the wrong columns (or past the matrices' ends).
QString whyNotEditable(const Document& document)
{
    const auto result = document.result();
    if (!result) return Text::tr("there are no weights to edit yet");
    if (!document.isValid())
        return Text::tr("the settings are not valid; the weights shown are of the last valid ones");
    if (result->config.grouping() != groupingOf(document) ||
        result->unscaledWeights->d_model() != document.config().d_model)
        return Text::tr("the weights shown are not of the current d_model, h and g yet");
    return {};
}

// The heads an edit of `matrices` of `head` changes: the head, and when W^K or W^V is among
// them, every head reading the same key/value head (grouped-query attention). Those become
// edited too, keeping what they show (presets included), so that a preset of theirs, which
// writes the shared block, cannot write it over the edit.
std::vector<qkv::Index> headsChangedBy(const qkv::HeadGrouping& g, qkv::Index head,
                                       const std::vector<qkv::HeadMatrix>& matrices)
{
    std::vector<qkv::Index> heads{head};
    const bool shared = std::any_of(matrices.begin(), matrices.end(), [](qkv::HeadMatrix m) {
        return m == qkv::HeadMatrix::Key || m == qkv::HeadMatrix::Value;
    });
    // Invalid settings (g not dividing h): the edit is refused anyway (whyNotEditable).
    if (!shared || g.keyValueHeadCount < 1 || g.headCount % g.keyValueHeadCount != 0) return heads;
    for (qkv::Index other = 0; other < g.headCount; ++other)
        if (other != head && g.keyValueHeadOf(other) == g.keyValueHeadOf(head)) heads.push_back(other);
    return heads;
}

const std::vector<qkv::HeadMatrix> kAllBlocks = {qkv::HeadMatrix::Query, qkv::HeadMatrix::Key, qkv::HeadMatrix::Value,
                                                 qkv::HeadMatrix::Output};

}  // namespace

std::shared_ptr<const qkv::AttentionWeights> editableWeights(const Document& document)
{
    return whyNotEditable(document).isEmpty() ? document.result()->unscaledWeights : nullptr;
}

bool applyHeadEdit(Document& document, const std::vector<qkv::Index>& heads, const QString& description,
                   const HeadEdit& edit, EditKey key, std::shared_ptr<const qkv::AttentionWeights> base)
{
    if (!base) base = editableWeights(document);
    if (!base) {
        emit document.notice(Text::tr("%1: %2.").arg(description, whyNotEditable(document)));
        return false;
    }
    auto edited = edit(*base);
    if (!edited.ok()) {
        emit document.notice(Text::tr("%1: %2").arg(description, QString::fromStdString(edited.error())));
        return false;
    }
    return document.editWeights(std::make_shared<const qkv::AttentionWeights>(std::move(edited.value())), heads,
                                description, key);
}

bool setHeadCell(Document& document, qkv::Index head, qkv::HeadMatrix matrix, qkv::Index row, qkv::Index column,
                 float value)
{
    const qkv::HeadGrouping g = groupingOf(document);
    return applyHeadEdit(
        document, headsChangedBy(g, head, {matrix}),
        Text::tr("Set %1[%2, %3] = %4").arg(blocksText({matrix}, head)).arg(row).arg(column).arg(value),
        [&](const qkv::AttentionWeights& w) { return qkv::setHeadEntry(w, g, head, matrix, row, column, value); });
}

bool scaleHeadBlocks(Document& document, qkv::Index head, const std::vector<qkv::HeadMatrix>& matrices, float factor)
{
    const qkv::HeadGrouping g = groupingOf(document);
    return applyHeadEdit(document, headsChangedBy(g, head, matrices),
                         Text::tr("Scale %1 by %2").arg(blocksText(matrices, head)).arg(factor),
                         [&](const qkv::AttentionWeights& w) { return scaleAll(w, g, head, matrices, factor); });
}

bool zeroHeadBlocks(Document& document, qkv::Index head, const std::vector<qkv::HeadMatrix>& matrices)
{
    const qkv::HeadGrouping g = groupingOf(document);
    return applyHeadEdit(document, headsChangedBy(g, head, matrices),
                         Text::tr("Zero %1").arg(blocksText(matrices, head)),
                         [&](const qkv::AttentionWeights& w) { return scaleAll(w, g, head, matrices, 0.0f); });
}

bool swapHeadQueryAndKey(Document& document, qkv::Index head)
{
    const qkv::HeadGrouping g = groupingOf(document);
    return applyHeadEdit(document, headsChangedBy(g, head, {qkv::HeadMatrix::Query, qkv::HeadMatrix::Key}),
                         Text::tr("Swap W_%1^Q and W_%1^K").arg(head + 1),
                         [&](const qkv::AttentionWeights& w) -> qkv::Expected<qkv::AttentionWeights> {
                             return qkv::swapQueryAndKey(w, g, head);
                         });
}

bool rerandomiseHeadWeights(Document& document, qkv::Index head, std::uint64_t seed)
{
    const qkv::HeadGrouping g = groupingOf(document);
    const qkv::WeightInit init = document.config().init;
    return applyHeadEdit(document, headsChangedBy(g, head, kAllBlocks),
                         Text::tr("Re-randomise head %1 (seed %2)").arg(head + 1).arg(seed),
                         [&](const qkv::AttentionWeights& w) -> qkv::Expected<qkv::AttentionWeights> {
                             return qkv::rerandomiseHead(w, g, head, seed, init);
                         });
}

bool copyHeadOnto(Document& document, qkv::Index from, qkv::Index to)
{
    if (from == to) return false;
    const qkv::HeadGrouping g = groupingOf(document);
    return applyHeadEdit(document, headsChangedBy(g, to, kAllBlocks),
                         Text::tr("Copy head %1 onto head %2").arg(from + 1).arg(to + 1),
                         [&](const qkv::AttentionWeights& w) -> qkv::Expected<qkv::AttentionWeights> {
                             return qkv::copyHead(w, g, from, to);
                         });
}

bool PaintStroke::begin(qkv::Index head, qkv::HeadMatrix matrix)
{
    weights_ = editableWeights(document_);
    head_ = head;
    matrix_ = matrix;
    painted_ = 0;
    return weights_ != nullptr;
}

bool PaintStroke::paint(qkv::Index row, qkv::Index column, float value)
{
    if (!weights_) return false;
    if (painted_ == 0) alternate_ = !alternate_;  // a new stroke: a new undo step (EditKey::WeightsStroke)
    const EditKey key = alternate_ ? EditKey::Weights : EditKey::WeightsStroke;
    const qkv::HeadGrouping g = document_.config().grouping();
    auto edited = qkv::setHeadEntry(*weights_, g, head_, matrix_, row, column, value);
    if (!edited.ok()) {
        emit document_.notice(QString::fromStdString(edited.error()));
        return false;
    }
    auto next = std::make_shared<const qkv::AttentionWeights>(std::move(edited.value()));
    if (!document_.editWeights(next, headsChangedBy(g, head_, {matrix_}),
                               Text::tr("Paint %1").arg(blocksText({matrix_}, head_)), key))
        return false;
    weights_ = std::move(next);
    ++painted_;
    return true;
}

void PaintStroke::end()
{
    weights_.reset();
    painted_ = 0;
}

}  // namespace qkv::ui

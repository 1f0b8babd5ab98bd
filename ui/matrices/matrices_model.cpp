#include "ui/matrices/matrices_model.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ui/background/work_placement.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::MatricesModel)
};

std::size_t at(LayerMatrix m) { return static_cast<std::size_t>(m); }

bool dependsOnHead(LayerMatrix m)
{
    switch (m) {
    case LayerMatrix::QueryHead:
    case LayerMatrix::KeyHead:
    case LayerMatrix::ValueHead:
    case LayerMatrix::Scores:
    case LayerMatrix::Attention:
    case LayerMatrix::HeadOutput: return true;
    default: return false;
    }
}

// With many keys most weights are tiny: like the heads grid, the colour scale ends at the 99th
// percentile (rounded up), so structure stays visible; the few larger weights saturate.
double attentionColourTop(const qkv::MatrixF& attention)
{
    const qkv::Index stride = std::max<qkv::Index>(1, attention.size() / 200000);
    std::vector<float> sample;
    sample.reserve(static_cast<std::size_t>(attention.size() / stride + 1));
    for (qkv::Index i = 0; i < attention.size(); i += stride) sample.push_back(attention.data()[i]);
    if (sample.empty()) return 1.0;
    const auto nth = sample.begin() + static_cast<std::ptrdiff_t>(0.99 * static_cast<double>(sample.size() - 1));
    std::nth_element(sample.begin(), nth, sample.end());
    return std::min(1.0, niceCeiling(*nth));
}

std::shared_ptr<const MatrixPicture> signedPicture(const qkv::MatrixF& m)
{
    return std::make_shared<const MatrixPicture>(makeSignedPicture(m));
}

// Concat as W^O receives it: every head's output, switched-off heads' blocks zero.
qkv::MatrixF concatAsUsed(const qkv::AttentionResult& a)
{
    qkv::MatrixF concat = a.headOutputs;  // n_q x d_model
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        if (a.isAblated(i)) concat.middleCols(i * a.d_v(), a.d_v()).setZero();
    return concat;
}

std::shared_ptr<const MatrixPicture> makeShared(const qkv::Result& r, LayerMatrix m)
{
    const qkv::AttentionResult& a = r.attention;
    switch (m) {
    case LayerMatrix::QueryInput: return signedPicture(r.queryInput);
    case LayerMatrix::KeyValueInput: return signedPicture(r.keyValueInput);
    case LayerMatrix::Query: return signedPicture(a.query);
    case LayerMatrix::Key: return signedPicture(a.key);
    case LayerMatrix::Value: return signedPicture(a.value);
    case LayerMatrix::Concat: return signedPicture(concatAsUsed(a));
    case LayerMatrix::OutputProjection: return signedPicture(r.weights->outputProjection);
    case LayerMatrix::Output: return signedPicture(a.output);
    default: return {};
    }
}

std::shared_ptr<const MatrixPicture> makeForHead(const qkv::Result& r, qkv::Index head, LayerMatrix m)
{
    const qkv::AttentionResult& a = r.attention;
    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head)];
    switch (m) {
    case LayerMatrix::QueryHead: return signedPicture(a.queryHead(head));
    case LayerMatrix::KeyHead: return signedPicture(a.keyHead(head));
    case LayerMatrix::ValueHead: return signedPicture(a.valueHead(head));
    case LayerMatrix::HeadOutput: return signedPicture(a.headOutput(head));
    case LayerMatrix::Scores: {
        qkv::MatrixF scores = h.scores;
        a.mask.fillMasked(scores, -std::numeric_limits<float>::infinity());
        return signedPicture(scores);
    }
    case LayerMatrix::Attention: {
        const bool anyMask = a.mask.causal || !a.mask.keyPadding.empty();
        const double top = attentionColourTop(h.attention);
        if (!anyMask)
            return std::make_shared<const MatrixPicture>(makePicture(h.attention, ColormapName::Viridis, 0.0, top));
        qkv::MatrixF shown = h.attention;  // masked pairs grey, not a computed 0
        a.mask.fillMasked(shown, std::numeric_limits<float>::quiet_NaN());
        return std::make_shared<const MatrixPicture>(makePicture(shown, ColormapName::Viridis, 0.0, top));
    }
    default: return {};
    }
}

}  // namespace

std::shared_ptr<const MatricesModel> MatricesModel::build(std::shared_ptr<const qkv::Result> result, qkv::Index head,
                                                          const std::shared_ptr<const MatricesModel>& previous)
{
    auto model = std::make_shared<MatricesModel>();
    model->result_ = std::move(result);
    if (!model->result_ || model->result_->attention.headCount() == 0) return model;
    model->head_ = std::clamp<qkv::Index>(head, 0, model->result_->attention.headCount() - 1);
    const bool reuse = previous && previous->result_ == model->result_;
    for (int i = 0; i < kLayerMatrixCount; ++i) {
        const auto m = static_cast<LayerMatrix>(i);
        if (dependsOnHead(m)) {
            model->pictures_[at(m)] = reuse && previous->head_ == model->head_
                                          ? previous->pictures_[at(m)]
                                          : makeForHead(*model->result_, model->head_, m);
        } else {
            model->pictures_[at(m)] = reuse ? previous->pictures_[at(m)] : makeShared(*model->result_, m);
        }
    }
    return model;
}

double MatricesModel::buildWork(const qkv::Result& r)
{
    const qkv::AttentionResult& a = r.attention;
    const double d = static_cast<double>(r.queryInput.cols());
    const double entries = (4.0 * static_cast<double>(a.queryCount()) + 4.0 * static_cast<double>(a.keyCount())) * d +
                           d * d + 2.0 * static_cast<double>(a.queryCount() * a.keyCount());
    return entries * kMultiplyAddsPerEntry;
}

const MatrixPicture& MatricesModel::picture(LayerMatrix m) const
{
    static const MatrixPicture empty;
    const auto& p = pictures_[at(m)];
    return p ? *p : empty;
}

qkv::Index MatricesModel::rows(LayerMatrix m) const { return picture(m).rows; }
qkv::Index MatricesModel::columns(LayerMatrix m) const { return picture(m).columns; }

MatrixRows MatricesModel::rowKind(LayerMatrix m) const
{
    switch (m) {
    case LayerMatrix::KeyValueInput:
    case LayerMatrix::Key:
    case LayerMatrix::Value:
    case LayerMatrix::KeyHead:
    case LayerMatrix::ValueHead: return MatrixRows::Keys;
    case LayerMatrix::OutputProjection: return MatrixRows::Model;
    default: return MatrixRows::Queries;
    }
}

double MatricesModel::value(LayerMatrix m, qkv::Index row, qkv::Index column) const
{
    const qkv::Result& r = *result_;
    const qkv::AttentionResult& a = r.attention;
    if (row < 0 || column < 0 || row >= rows(m) || column >= columns(m)) return std::nan("");
    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head_)];
    switch (m) {
    case LayerMatrix::QueryInput: return r.queryInput(row, column);
    case LayerMatrix::KeyValueInput: return r.keyValueInput(row, column);
    case LayerMatrix::Query: return a.query(row, column);
    case LayerMatrix::Key: return a.key(row, column);
    case LayerMatrix::Value: return a.value(row, column);
    case LayerMatrix::QueryHead: return a.queryHead(head_)(row, column);
    case LayerMatrix::KeyHead: return a.keyHead(head_)(row, column);
    case LayerMatrix::ValueHead: return a.valueHead(head_)(row, column);
    case LayerMatrix::Scores:
        return a.mask.masked(row, column) ? -std::numeric_limits<double>::infinity() : h.scores(row, column);
    case LayerMatrix::Attention: return h.attention(row, column);
    case LayerMatrix::HeadOutput: return a.headOutput(head_)(row, column);
    case LayerMatrix::Concat: return a.isAblated(column / a.d_v()) ? 0.0 : a.headOutputs(row, column);
    case LayerMatrix::OutputProjection: return r.weights->outputProjection(row, column);
    case LayerMatrix::Output: return a.output(row, column);
    }
    return std::nan("");
}

QString MatricesModel::name(LayerMatrix m) const
{
    switch (m) {
    case LayerMatrix::QueryInput: return QStringLiteral("X_q");
    case LayerMatrix::KeyValueInput: return QStringLiteral("X_kv");
    case LayerMatrix::Query: return QStringLiteral("Q");
    case LayerMatrix::Key: return QStringLiteral("K");
    case LayerMatrix::Value: return QStringLiteral("V");
    case LayerMatrix::QueryHead: return QStringLiteral("Q_%1").arg(head_ + 1);
    case LayerMatrix::KeyHead: return QStringLiteral("K_%1").arg(head_ + 1);
    case LayerMatrix::ValueHead: return QStringLiteral("V_%1").arg(head_ + 1);
    case LayerMatrix::Scores: return Text::tr("scores_%1").arg(head_ + 1);
    case LayerMatrix::Attention: return QStringLiteral("A_%1").arg(head_ + 1);
    case LayerMatrix::HeadOutput: return QStringLiteral("A_%1 V_%1").arg(head_ + 1);
    case LayerMatrix::Concat: return QStringLiteral("Concat");
    case LayerMatrix::OutputProjection: return QStringLiteral("W^O");
    case LayerMatrix::Output: return Text::tr("Output");
    }
    return {};
}

QString MatricesModel::formula(LayerMatrix m) const
{
    const qkv::AttentionResult& a = result_->attention;
    const bool bias = result_->weights && result_->weights->hasBias();
    const bool rotary = a.queryBeforeRotation.size() > 0;
    switch (m) {
    case LayerMatrix::QueryInput: return Text::tr("input of Q");
    case LayerMatrix::KeyValueInput: return Text::tr("input of K and V");
    case LayerMatrix::Query:
        return Text::tr("X_q W^Q%1%2")
            .arg(bias ? QStringLiteral(" + b^Q") : QString(), rotary ? Text::tr(", rotated") : QString());
    case LayerMatrix::Key:
        return Text::tr("X_kv W^K%1%2")
            .arg(bias ? QStringLiteral(" + b^K") : QString(), rotary ? Text::tr(", rotated") : QString());
    case LayerMatrix::Value: return Text::tr("X_kv W^V%1").arg(bias ? QStringLiteral(" + b^V") : QString());
    case LayerMatrix::QueryHead: return Text::tr("block of Q");
    case LayerMatrix::KeyHead:
    case LayerMatrix::ValueHead:
        return a.grouping.keyValueHeadCount != a.headCount()
                   ? Text::tr("K/V head %1").arg(keyValueHead() + 1)
                   : Text::tr("block of %1").arg(m == LayerMatrix::KeyHead ? QStringLiteral("K") : QStringLiteral("V"));
    case LayerMatrix::Scores:
        return a.scoreScale != 1.0f ? Text::tr("Q_i K_iᵀ/√d_k") : Text::tr("Q_i K_iᵀ, not scaled");
    case LayerMatrix::Attention: return Text::tr("row softmax");
    case LayerMatrix::HeadOutput: return Text::tr("head_%1").arg(head_ + 1);
    case LayerMatrix::Concat: return Text::tr("head_1 … head_h");
    case LayerMatrix::OutputProjection:
        return a.d_v() == a.d_k() ? Text::tr("d_k rows per head") : Text::tr("d_v rows per head");
    case LayerMatrix::Output: return Text::tr("Concat W^O%1").arg(bias ? QStringLiteral(" + b^O") : QString());
    }
    return {};
}

}  // namespace qkv::ui

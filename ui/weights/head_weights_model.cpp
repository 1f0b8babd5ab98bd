#include "ui/weights/head_weights_model.hpp"

#include <algorithm>
#include <QCoreApplication>

#include "ui/background/work_placement.hpp"
#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {
// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadWeightsModel)
};
}  // namespace

QString headMatrixSymbol(qkv::HeadMatrix m, qkv::Index head)
{
    const QString i = QString::number(head + 1);
    switch (m) {
    case qkv::HeadMatrix::Query: return QStringLiteral("W_%1^Q").arg(i);
    case qkv::HeadMatrix::Key: return QStringLiteral("W_%1^K").arg(i);
    case qkv::HeadMatrix::Value: return QStringLiteral("W_%1^V").arg(i);
    case qkv::HeadMatrix::Output: return QStringLiteral("W_%1^O").arg(i);
    }
    return {};
}

std::shared_ptr<const HeadWeightsModel> HeadWeightsModel::build(std::shared_ptr<const qkv::Result> result,
                                                                qkv::Index head, Index maxSide)
{
    auto model = std::make_shared<HeadWeightsModel>();
    model->result_ = std::move(result);
    model->head_ = head;
    if (!model->result_ || !model->result_->unscaledWeights) return model;
    const qkv::Result& r = *model->result_;
    const qkv::HeadGrouping g = r.config.grouping();
    for (const qkv::HeadMatrix m : kHeadMatrices) {
        model->blocks_[index(m)] = qkv::headBlock(*r.unscaledWeights, g, head, m);
        model->pictures_[index(m)] = makeSignedPicture(model->blocks_[index(m)], maxSide);
    }
    auto effects = qkv::ablationEffects(r);
    if (effects.ok())
        model->effects_ = std::move(effects.value());
    else
        model->effectsError_ = QString::fromStdString(effects.error());
    return model;
}

double HeadWeightsModel::buildWork(const qkv::Result& result)
{
    const auto d = static_cast<double>(result.config.d_model);
    const auto n = static_cast<double>(result.attention.queryCount());
    const auto dk = static_cast<double>(std::max(result.attention.d_k(), result.attention.d_v()));
    // The four d_model x d_k blocks and the n_q x d_model ablation rows are coloured or read
    // entry by entry; the ranks take a thin QR per block.
    return (4 * d * dk + n * d) * kMultiplyAddsPerEntry + d * d * dk / 8;
}

bool HeadWeightsModel::grouped() const { return result_ && result_->config.g() < result_->config.headCount; }

QString HeadWeightsModel::symbol(qkv::HeadMatrix m) const { return headMatrixSymbol(m, head_); }

QString HeadWeightsModel::sharedAs(qkv::HeadMatrix m) const
{
    if (grouped() && (m == qkv::HeadMatrix::Key || m == qkv::HeadMatrix::Value))
        return Text::tr("(key/value head %1's)").arg(keyValueHead() + 1);
    return {};
}

QString HeadWeightsModel::name(qkv::HeadMatrix m) const
{
    const QString shared = sharedAs(m);
    return shared.isEmpty() ? symbol(m) : symbol(m) + QLatin1Char(' ') + shared;
}

QString HeadWeightsModel::shapeText(qkv::HeadMatrix m) const
{
    // d_v is d_k except in a full W_i layer (W_i^Q = W_i, W_i^K = I, d_k = d_model).
    const bool ownValueWidth = result_ && result_->attention.d_v() != result_->attention.d_k();
    const QString width = ownValueWidth && (m == qkv::HeadMatrix::Value || m == qkv::HeadMatrix::Output)
                              ? QStringLiteral("d_v")
                              : QStringLiteral("d_k");
    const QString dims = m == qkv::HeadMatrix::Output ? width + QStringLiteral(" × d_model")
                                                      : QStringLiteral("d_model × ") + width;
    return QStringLiteral("%1 = %2").arg(dims, qkv::ui::shapeText(rows(m), columns(m)));
}

}  // namespace qkv::ui

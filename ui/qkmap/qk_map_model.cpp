#include "ui/qkmap/qk_map_model.hpp"

#include <algorithm>

namespace qkv::ui {

std::shared_ptr<const QkMapModel> QkMapModel::build(std::shared_ptr<const qkv::Result> result)
{
    auto model = std::make_shared<QkMapModel>();
    model->result = std::move(result);
    if (!model->result) return model;
    const qkv::Index heads = model->result->attention.headCount();
    model->heads.resize(static_cast<std::size_t>(heads));
    model->errors.resize(static_cast<std::size_t>(heads));
    for (qkv::Index i = 0; i < heads; ++i) {
        auto projection = qkv::qkProjection(*model->result, i);
        if (projection)
            model->heads[static_cast<std::size_t>(i)] = std::move(projection).value();
        else
            model->errors[static_cast<std::size_t>(i)] = QString::fromStdString(projection.error());
    }
    return model;
}

double QkMapModel::buildWork(const qkv::Result& result)
{
    const qkv::AttentionResult& a = result.attention;
    const double points = static_cast<double>(a.queryCount() + a.keyCount());
    const double d_k = static_cast<double>(a.d_k());
    return static_cast<double>(a.headCount()) * points * d_k * std::min(points, d_k);
}

std::vector<AttentionLine> attentionLines(const qkv::Result& result, qkv::Index head, qkv::Index query)
{
    std::vector<AttentionLine> lines;
    const qkv::AttentionResult& a = result.attention;
    if (head < 0 || head >= a.headCount() || query < 0 || query >= a.queryCount()) return lines;
    const qkv::MatrixF& weights = a.heads[static_cast<std::size_t>(head)].attention;
    lines.reserve(static_cast<std::size_t>(a.keyCount()));
    for (qkv::Index j = 0; j < a.keyCount(); ++j) lines.push_back({j, std::clamp<double>(weights(query, j), 0.0, 1.0)});
    return lines;
}

}  // namespace qkv::ui

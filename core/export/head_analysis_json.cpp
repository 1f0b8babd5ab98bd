#include "core/export/head_analysis_json.hpp"

#include "core/analysis/head_statistics.hpp"
#include "core/analysis/qk_projection.hpp"
#include "core/result/result.hpp"

namespace qkv {

namespace {

// Numbers as a list; NaN (an undefined value) is written as null by JsonStream.
template <class Vector>
void numbers(JsonStream& json, const Vector& values)
{
    json.beginArray();
    for (Index i = 0; i < values.size(); ++i) json.value(static_cast<double>(values(i)));
    json.endArray();
}

void writeStatistics(JsonStream& json, const Result& r, Index head)
{
    json.key("statistics");
    const Expected<HeadStatistics> stats = headStatistics(r, head);
    if (!stats) {
        json.null();
        return;
    }
    json.beginObject();
    json.key("visible_keys");
    json.beginArray();
    for (const Index visible : stats->visibleKeys) json.value(static_cast<std::int64_t>(visible));
    json.endArray();
    json.key("entropy"); numbers(json, stats->entropy);
    json.key("normalized_entropy"); numbers(json, stats->normalizedEntropy);
    json.key("mean_distance"); numbers(json, stats->meanDistance);
    json.key("max_weight"); numbers(json, stats->maxWeight);
    json.key("self_weight");
    if (stats->hasSelfWeight()) numbers(json, stats->selfWeight);
    else json.null();  // cross-attention: a query has no own position among the keys
    const HeadStatisticsSummary& mean = stats->summary;
    json.key("mean");
    json.beginObject();
    json.key("entropy"); json.value(mean.entropy);
    json.key("normalized_entropy"); json.value(mean.normalizedEntropy);
    json.key("mean_distance"); json.value(mean.meanDistance);
    json.key("max_weight"); json.value(mean.maxWeight);
    json.key("self_weight"); json.value(mean.selfWeight);
    json.key("rows"); json.value(static_cast<std::int64_t>(mean.rows));
    json.endObject();
    json.endObject();
}

void points(JsonStream& json, const MatrixD& xy)
{
    json.beginArray();
    for (Index p = 0; p < xy.rows(); ++p) {
        json.beginArray();
        json.value(xy(p, 0));
        json.value(xy(p, 1));
        json.endArray();
    }
    json.endArray();
}

// Exactly the three keys of the contract: queries, keys, explained_variance_ratio.
void writeQkProjection(JsonStream& json, const Result& r, Index head)
{
    json.key("qk_projection");
    const Expected<QkProjection> projection = qkProjection(r, head);
    if (!projection) {
        json.null();
        return;
    }
    json.beginObject();
    json.key("queries"); points(json, projection->queries);
    json.key("keys"); points(json, projection->keys);
    json.key("explained_variance_ratio");
    json.beginArray();
    json.value(projection->explainedVarianceRatio[0]);
    json.value(projection->explainedVarianceRatio[1]);
    json.endArray();
    json.endObject();
}

void writeAblation(JsonStream& json, const AblationEffects* effects, Index head)
{
    json.key("ablation");
    if (!effects) {
        json.null();
        return;
    }
    json.beginObject();
    json.key("ablated"); json.value(static_cast<bool>(effects->ablated[static_cast<std::size_t>(head)]));
    json.key("relative_output_change"); numbers(json, effects->relativeChange.col(head));
    json.key("output_change_norm"); numbers(json, effects->changeNorm.col(head));
    json.key("mean_relative_output_change"); json.value(effects->meanRelativeChange(head));
    json.endObject();
}

}  // namespace

void writeHeadAnalysis(JsonStream& json, const Result& result, Index head, const AblationEffects* ablation)
{
    writeStatistics(json, result, head);
    json.newline();
    writeQkProjection(json, result, head);
    json.newline();
    writeAblation(json, ablation, head);
}

}  // namespace qkv

#include "ui/document/config_settings.hpp"

#include <QString>

#include "ui/settings/preference.hpp"

#if __has_include("core/config/examples.hpp")
#include "core/config/examples.hpp"
#define QKV_HAVE_CORE_EXAMPLE 1
#endif

namespace qkv::ui {
namespace {

const Preference<bool> kSaved{QStringLiteral("lastConfig/saved"), false};
const Preference<QString> kSource{QStringLiteral("lastConfig/source"), {}};
const Preference<QString> kTarget{QStringLiteral("lastConfig/target"), {}};
const Preference<QString> kMode{QStringLiteral("lastConfig/mode"), QStringLiteral("cross")};
const Preference<qlonglong> kDModel{QStringLiteral("lastConfig/dModel"), 64};
const Preference<qlonglong> kHeads{QStringLiteral("lastConfig/heads"), 4};
const Preference<qulonglong> kSeed{QStringLiteral("lastConfig/seed"), 0};
const Preference<int> kInit{QStringLiteral("lastConfig/init"), 0};
const Preference<bool> kPositional{QStringLiteral("lastConfig/positional"), true};
const Preference<bool> kBias{QStringLiteral("lastConfig/bias"), false};
const Preference<double> kScaleQ{QStringLiteral("lastConfig/scaleQuery"), 1.0};
const Preference<double> kScaleK{QStringLiteral("lastConfig/scaleKey"), 1.0};
const Preference<double> kScaleV{QStringLiteral("lastConfig/scaleValue"), 1.0};
const Preference<double> kScaleO{QStringLiteral("lastConfig/scaleOutput"), 1.0};

}  // namespace

qkv::Config defaultConfig()
{
#ifdef QKV_HAVE_CORE_EXAMPLE
    return qkv::builtInExample();
#else
    qkv::Config config;
    config.sourceText = "The cat sat on the mat because it was tired.";
    config.targetText = "Le chat s'est assis sur le tapis parce qu'il était fatigué.";
    config.mode = qkv::AttentionMode::Cross;
    config.d_model = 64;
    config.headCount = 4;
    config.seed = 7;
    return config;
#endif
}

qkv::Config loadLastConfig(const qkv::Config& fallback)
{
    if (!kSaved.value()) return fallback;
    qkv::Config config = fallback;
    config.sourceText = kSource.value().toStdString();
    config.targetText = kTarget.value().toStdString();
    qkv::AttentionMode mode{};
    if (qkv::parseMode(kMode.value().toStdString(), mode)) config.mode = mode;
    config.d_model = kDModel.value();
    config.headCount = kHeads.value();
    config.seed = kSeed.value();
    config.init = kInit.value() == 1 ? qkv::WeightInit::Normal : qkv::WeightInit::XavierUniform;
    config.positional = kPositional.value() ? qkv::PositionalEncoding::Sinusoidal : qkv::PositionalEncoding::None;
    config.withBias = kBias.value();
    config.scales.query = static_cast<float>(kScaleQ.value());
    config.scales.key = static_cast<float>(kScaleK.value());
    config.scales.value = static_cast<float>(kScaleV.value());
    config.scales.output = static_cast<float>(kScaleO.value());
    return config;
}

void saveLastConfig(const qkv::Config& config)
{
    kSaved.setValue(true);
    kSource.setValue(QString::fromStdString(config.sourceText));
    kTarget.setValue(QString::fromStdString(config.targetText));
    kMode.setValue(QString::fromUtf8(qkv::modeName(config.mode).data(),
                                     static_cast<qsizetype>(qkv::modeName(config.mode).size())));
    kDModel.setValue(config.d_model);
    kHeads.setValue(config.headCount);
    kSeed.setValue(config.seed);
    kInit.setValue(config.init == qkv::WeightInit::Normal ? 1 : 0);
    kPositional.setValue(config.positional == qkv::PositionalEncoding::Sinusoidal);
    kBias.setValue(config.withBias);
    kScaleQ.setValue(config.scales.query);
    kScaleK.setValue(config.scales.key);
    kScaleV.setValue(config.scales.value);
    kScaleO.setValue(config.scales.output);
}

}  // namespace qkv::ui

#include "ui/train/trained_session.hpp"

#include <QCoreApplication>

#include "core/session/trained_session.hpp"

namespace qkv::ui {

qkv::Session trainedSession(const TrainingSnapshot& snapshot, std::size_t variant, qkv::Index layer,
                            const qkv::ViewOptions& view)
{
    qkv::Session s;
    if (variant < snapshot.variants.size())
        s = qkv::trainedModelSession(snapshot.variants[variant].model, layer, snapshot.example);
    s.view = view;
    return s;
}

QString keepDescription(const qkv::TrainedModel& model)
{
    return QCoreApplication::translate("qkv::ui::TrainTab", "Keep Trained Model (%1)")
        .arg(QString::fromStdString(model.provenance()));
}

}  // namespace qkv::ui

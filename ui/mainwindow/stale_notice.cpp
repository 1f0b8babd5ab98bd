#include "ui/mainwindow/stale_notice.hpp"

#include <QEvent>
#include <QStringList>

#include "ui/mainwindow/strip_colors.hpp"

namespace qkv::ui {

StaleNotice::StaleNotice(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("StaleNotice"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setAutoFillBackground(true);
    setMargin(6);
    setAccessibleName(tr("Views not updated"));
    updateColors();
    hide();
}

QString StaleNotice::controlName(qkv::ConfigField field)
{
    using qkv::ConfigField;
    switch (field) {
    case ConfigField::Source: return tr("the source sentence");
    case ConfigField::Target: return tr("the target sentence");
    case ConfigField::Mode: return tr("Mode");
    case ConfigField::DModel: return tr("d_model");
    case ConfigField::Heads: return tr("h (heads)");
    case ConfigField::HeadDim: return tr("d_k");
    case ConfigField::KeyValueHeads: return tr("g (key/value)");
    case ConfigField::Embeddings: return tr("Embeddings");
    case ConfigField::Positional: return tr("Positions");
    case ConfigField::Weights:
    case ConfigField::Presets:
    case ConfigField::Ablation: return tr("Weights");
    }
    return tr("the settings");
}

void StaleNotice::setIssues(const std::vector<qkv::ValidationIssue>& issues, bool hasResult)
{
    QStringList controls;
    for (const qkv::ValidationIssue& issue : issues) {
        const QString name = controlName(issue.field);
        if (!controls.contains(name)) controls << name;
    }
    const QString where = controls.join(tr(", "));
    if (controls.isEmpty())
        issuesText_.clear();
    else if (hasResult)
        issuesText_ = tr("Not updated: the views show the last valid settings. See the message under %1 on the "
                         "left; the views follow again once it is fixed.")
                          .arg(where);
    else
        issuesText_ = tr("Nothing to show yet: see the message under %1 on the left.").arg(where);
    // New settings: a failure of the earlier ones no longer describes what is on screen.
    computeError_.clear();
    refresh();
}

void StaleNotice::setComputeError(const QString& message)
{
    computeError_ = message;
    refresh();
}

void StaleNotice::setStopped(bool stopped)
{
    stopped_ = stopped;
    refresh();
}

void StaleNotice::refresh()
{
    QString text = issuesText_;
    if (text.isEmpty() && !computeError_.isEmpty())
        text = tr("Not updated: these settings could not be computed (%1). The views show the last result.")
                   .arg(computeError_);
    if (text.isEmpty() && stopped_)
        text = tr("Not updated: you stopped computing this long layer. The views show the last result; the next "
                  "edit computes again.");
    setText(text);
    setVisible(!text.isEmpty());
}

void StaleNotice::changeEvent(QEvent* event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateColors();
}

void StaleNotice::updateColors()
{
    // An amber strip: a warning.
    applyStripColors(*this, {QColor(0xff, 0xf1, 0xc2), QColor(0x4a, 0x36, 0x00)}, {QColor(0x5c, 0x45, 0x00), QColor(0xff, 0xf1, 0xc2)});
}

}  // namespace qkv::ui

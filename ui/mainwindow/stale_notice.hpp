#pragma once
// A strip above the views while they are not up to date with the settings: the settings are
// invalid (the views keep the last valid result, docs/architecture.md, "Layers") or the computation
// failed. It says so where the user is looking and names the controls whose messages explain
// what to fix. Hidden while the views follow the settings.

#include <QLabel>

#include <vector>

#include "core/config/validation.hpp"

namespace qkv::ui {

class StaleNotice : public QLabel {
    Q_OBJECT
public:
    explicit StaleNotice(QWidget* parent = nullptr);

    // `hasResult`: the views show an earlier result (else they show none yet).
    void setIssues(const std::vector<qkv::ValidationIssue>& issues, bool hasResult);
    // The last computation failed with `message`; empty when a result arrived.
    void setComputeError(const QString& message);
    // The user stopped the long layer's computation (true), or a result arrived since (false).
    void setStopped(bool stopped);

    // The control a field's message sits under, as the controls label it.
    static QString controlName(qkv::ConfigField field);

protected:
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void updateColors();

    QString issuesText_;
    QString computeError_;
    bool stopped_ = false;
};

}  // namespace qkv::ui

#pragma once
// The Circuits tab's "This head" page: one head's QK and OV circuits in the vocabulary
// (core/circuits/head_circuits.hpp), for each distinct token of the typed prompt: the keys it
// attends to most by QK and the tokens the head promotes most by OV when it attends to it, as
// two tables with the values; beside them the eigenvalues of its OV circuit in the complex plane
// and its copying score in words. The definitions are said on the page.
//
// Both tables are computed off the GUI thread (LatestTask: a newer head or sentence wins); the
// spectrum once the tab has W_U W_E (setBasisReady).

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/circuits/head_circuits.hpp"
#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"

class QHBoxLayout;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace qkv::ui {

class FigureCanvas;

class HeadCircuitsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadCircuitsPanel(QWidget* parent = nullptr);

    // The head to show of `overview`'s model; the same head and prompt again does nothing.
    void setHead(std::shared_ptr<const qkv::ModelOverview> overview, qkv::CircuitHead head);
    // The model's W_U W_E is stored (circuit_store.hpp): the spectrum can be computed.
    void setBasisReady();

    qkv::CircuitHead head() const { return head_; }
    QLabel* headLabel() const { return headLabel_; }
    QLabel* statusLabel() const { return status_; }
    QTableWidget* qkTable() const { return qk_; }
    QTableWidget* ovTable() const { return ov_; }
    FigureCanvas* eigenvalueCanvas() const { return eigenvalues_; }
    QSpinBox* topBox() const { return top_; }
    const std::optional<qkv::HeadSpectrum>& spectrum() const { return spectrum_; }
    bool isComputing() const { return tablesPending_ || spectrumPending_; }

signals:
    // The tables or the spectrum arrived (or failed: statusLabel() says why).
    void computed();

private:
    struct Tables {
        std::vector<qkv::TokenCircuit> qk, ov;
        QString problem;
    };
    struct Spectrum {
        std::optional<qkv::HeadSpectrum> spectrum;
        QString problem;
    };
    QHBoxLayout* makeHeadline();
    QWidget* makeTables();
    void requestTables();
    void requestSpectrum();
    void deliverTables(const Tables& tables);
    void deliverSpectrum(const Spectrum& spectrum);
    void showHeadline();
    void showStatus();

    std::shared_ptr<const qkv::ModelOverview> overview_;
    qkv::CircuitHead head_{-1, -1};
    std::vector<std::int32_t> promptIds_;
    std::optional<qkv::HeadSpectrum> spectrum_;
    QString tablesProblem_, spectrumProblem_;
    bool tablesPending_ = false, spectrumPending_ = false;  // requested, not delivered yet
    QLabel* headLabel_;
    QLabel* scoreLabel_;
    QSpinBox* top_;
    QTableWidget* qk_;
    QTableWidget* ov_;
    FigureCanvas* eigenvalues_;
    QLabel* status_;
    // Declared last: their destructors wait for the running work, which reads none of the above.
    LatestTask<Tables> tables_{[this](const Tables& tables) { deliverTables(tables); }};
    LatestTask<Spectrum> spectra_{[this](const Spectrum& spectrum) { deliverSpectrum(spectrum); }};
};

}  // namespace qkv::ui

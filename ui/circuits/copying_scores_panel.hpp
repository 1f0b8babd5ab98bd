#pragma once
// The Circuits tab's "Copying scores" page: the layers x heads grid of every head's copying
// score (copying_grid_figure.hpp), with the progress of its computation; hover says a head's
// score, a click opens the head (headClicked).

#include <QWidget>

#include <memory>

#include "core/pipeline/model_overview.hpp"

class QLabel;
class QProgressBar;

namespace qkv::ui {

class FigureCanvas;
struct CellTable;

class CopyingScoresPanel : public QWidget {
    Q_OBJECT
public:
    explicit CopyingScoresPanel(QWidget* parent = nullptr);

    // The scores of `overview`'s model (null while they are computed), the head selected.
    void setScores(std::shared_ptr<const qkv::ModelOverview> overview, std::shared_ptr<const qkv::MatrixD> scores,
                   qkv::ModelHead selected);
    // `done` of `total` layers ("computing W_U W_E…" while total is 0); a problem says why there
    // are no scores. Empty problem and total 0 with scores: nothing under way.
    void setProgress(qkv::Index done, qkv::Index total, const QString& status);

    // For tests and keyboard users: a cell's centre in canvas coordinates ((-1, -1): none).
    QPoint cellCenter(qkv::ModelHead head) const;
    QString toolTipAt(const QPointF& position) const;
    FigureCanvas* canvas() const { return canvas_; }
    QLabel* statusLabel() const { return status_; }

signals:
    void headClicked(qkv::ModelHead head);

private:
    qkv::ModelHead headAt(const QPointF& position) const;
    CellTable accessibleTable() const;

    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const qkv::MatrixD> scores_;
    qkv::ModelHead selected_{-1, -1};
    QLabel* status_;
    QProgressBar* bar_;
    FigureCanvas* canvas_;
};

}  // namespace qkv::ui

#pragma once
// "Weights" tab (issue 7, sections 4 and 5): the selected head's W_i^Q, W_i^K, W_i^V and W_i^O
// (head_weights_figures.hpp) with the editor's actions, each one undo step through the
// Document (head_weight_edits.hpp): a preset (the Head menu's list), a typed cell (click a
// cell, type, Enter), painting by dragging on blocks of d_model <= 64, scale, zero, swap
// W_i^Q with W_i^K, re-randomise with a seed, copy onto another head, switch the head off.
// Beside the blocks: what switching each head off alone changes for the selected query.
// Pictures and ablation numbers are built through a LatestTask (off the GUI thread for big
// layers), so d_model 1024 stays responsive.

#include <memory>

#include "ui/editor/head_weight_edits.hpp"
#include "ui/editor/head_weights_figures.hpp"
#include "ui/editor/head_weights_model.hpp"
#include "ui/views/latest_task.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace qkv::ui {

class Document;
class FigureCanvas;
class HeadSelection;

class HeadWeightsView : public ResultView {
    Q_OBJECT
public:
    HeadWeightsView(Document* document, HeadSelection* selection, QWidget* parent = nullptr);
    ~HeadWeightsView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId{"head-weights"};
    QString title() const override;
    QString id() const override { return kId; }

    const std::shared_ptr<const HeadWeightsModel>& model() const { return model_; }
    FigureCanvas* canvas() const { return canvas_; }
    HeadWeightsGeometry geometry() const;
    bool isBusy() const { return build_.isBusy(); }
    // The cell being edited (matrix -1: none).
    const HeadWeightsMark& editedCell() const { return mark_; }
    QString toolTipAt(const QPointF& position) const;
    // "Head 1 · same meaning" per head (empty: "Head i"), as the heads grid titles them.
    void setHeadTitles(const QStringList& titles);

    // The controls, for tests.
    QComboBox* blockBox() const { return blockBox_; }
    QDoubleSpinBox* valueBox() const { return valueBox_; }
    QPushButton* setButton() const { return setButton_; }
    QToolButton* paintButton() const { return paintButton_; }
    QToolButton* presetButton() const { return presetButton_; }
    QDoubleSpinBox* factorBox() const { return factorBox_; }
    QPushButton* scaleButton() const { return scaleButton_; }
    QPushButton* zeroButton() const { return zeroButton_; }
    QPushButton* swapButton() const { return swapButton_; }
    QSpinBox* seedBox() const { return seedBox_; }
    QPushButton* rerandomiseButton() const { return rerandomiseButton_; }
    QComboBox* copyTargetBox() const { return copyTargetBox_; }
    QPushButton* copyButton() const { return copyButton_; }
    QToolButton* switchOffButton() const { return switchOffButton_; }
    QLabel* ablationLabel() const { return ablationLabel_; }

    // Above this much work (HeadWeightsModel::buildWork) the model is built in the background.
    static constexpr double kAsynchronousWork = 2e6;

signals:
    void modelReady();

protected:
    void refresh(Changes changes) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* makeControls();
    void showModel(std::shared_ptr<const HeadWeightsModel> model);
    void updateControls();
    void pressAt(const QPointF& position);
    void dragAt(const QPointF& position);
    void selectCell(const HeadWeightsHit& hit);
    void setCell();
    std::vector<qkv::HeadMatrix> chosenBlocks() const;
    qkv::Index head() const;

    Document* document_;
    std::shared_ptr<const HeadWeightsModel> model_;
    HeadWeightsMark mark_;
    QStringList panelTitles_;
    PaintStroke stroke_;
    HeadWeightsHit lastPainted_;
    QComboBox* headBox_;
    QComboBox* blockBox_;
    QToolButton* presetButton_;
    QDoubleSpinBox* factorBox_;
    QPushButton* scaleButton_;
    QPushButton* zeroButton_;
    QPushButton* swapButton_;
    QToolButton* switchOffButton_;
    QLabel* cellLabel_;
    QDoubleSpinBox* valueBox_;
    QPushButton* setButton_;
    QToolButton* paintButton_;
    QSpinBox* seedBox_;
    QPushButton* rerandomiseButton_;
    QComboBox* copyTargetBox_;
    QPushButton* copyButton_;
    QLabel* ablationLabel_;
    FigureCanvas* canvas_;
    LatestTask<std::shared_ptr<const HeadWeightsModel>> build_;
};

}  // namespace qkv::ui

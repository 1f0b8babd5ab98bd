#pragma once
// "Weights" tab: the selected head's W_i^Q, W_i^K, W_i^V and W_i^O
// (head_weights_figures.hpp) with the editor's actions, each one undo step through the
// Document (head_weight_edits.hpp): a preset (the Head menu's list), a typed cell (click a
// cell, type, Enter), painting by dragging on blocks of d_model <= 64, scale, zero, swap
// W_i^Q with W_i^K, re-randomise with a seed, copy onto another head, switch the head off.
// Beside the blocks: what switching each head off alone changes for the selected query.
// Pictures and ablation numbers are built through a LatestTask (off the GUI thread for big
// layers), so d_model 1024 stays responsive.

#include "ui/views/model_view.hpp"
#include "ui/weights/head_weight_edits.hpp"
#include "ui/weights/head_weights_figures.hpp"
#include "ui/weights/head_weights_model.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace qkv::ui {

class Document;

class HeadWeightsView : public ModelView<HeadWeightsModel> {
    Q_OBJECT
public:
    HeadWeightsView(Document* document, HeadSelection* selection, QWidget* parent = nullptr);
    ~HeadWeightsView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kHeadWeightsViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    HeadWeightsGeometry geometry() const;
    // The cell being edited (matrix -1: none).
    const HeadWeightsMark& editedCell() const { return mark_; }
    QString toolTipAt(const QPointF& position) const override;
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

protected:
    void refresh(Changes changes) override;
    void modelChanged() override;
    void paintModel(QPainter& painter, const QRectF& rect) override;
    void clickAt(const QPointF& position) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* makeControls();
    void updateControls();
    void dragAt(const QPointF& position);
    void selectCell(const HeadWeightsHit& hit);
    void setCell();
    std::vector<qkv::HeadMatrix> chosenBlocks() const;
    qkv::Index head() const;

    Document* document_;
    HeadWeightsMark mark_;
    QStringList panelTitles_;
    PaintStroke stroke_;
    HeadWeightsHit lastPainted_;
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
};

}  // namespace qkv::ui

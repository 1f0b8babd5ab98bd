#pragma once
// The Export Figure dialog: which figure (of the current tab), the format, the size in logical
// pixels (1/96 inch) and, for PNG, the resolution in DPI, and the file. Remembers the last
// folder, format and DPI, and each tab's last figure (Preferences), and opens with them.

#include <QDialog>

#include <functional>
#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/figures/figure_export.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace qkv::ui {

class FigureExportDialog : public QDialog {
    Q_OBJECT
public:
    // `sizeOf`: a figure's size when the user asks for none (its defaultSizeFor the current
    // input); null: its defaultSize.
    using DefaultSize = std::function<QSizeF(const Figure&)>;
    FigureExportDialog(std::vector<const Figure*> figures, QWidget* parent = nullptr, DefaultSize sizeOf = {});

    const Figure* figure() const;
    FigureFormat format() const;
    ExportSize size() const;
    QString path() const;

    // Selects by name (for a view's context menu); false when not offered.
    bool selectFigure(const QString& name);
    void setPath(const QString& path);

    void accept() override;  // remembers the folder, format, DPI and the tab's figure

private:
    void figureChanged();
    void formatChanged();
    void updatePixels();
    void showDefaultSize(const Figure& figure);

    std::vector<const Figure*> figures_;
    DefaultSize sizeOf_;
    QComboBox* figureBox_;
    QComboBox* formatBox_;
    QSpinBox* widthBox_;
    QSpinBox* heightBox_;
    QSpinBox* dpiBox_;
    QLabel* pixels_;
    QLineEdit* pathEdit_;
};

}  // namespace qkv::ui

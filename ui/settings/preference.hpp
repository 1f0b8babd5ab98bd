#pragma once
// A typed setting, declared where it is used: `const Preference<int> heads{"config/heads", 4};`
// Keeps QSettings string keys next to their type and default instead of scattered (Tiled).

#include <QSettings>
#include <QString>
#include <QVariant>

#include <utility>

namespace qkv::ui {

template <class T>
class Preference {
public:
    Preference(QString key, T defaultValue) : key_(std::move(key)), default_(std::move(defaultValue)) {}

    T value() const
    {
        const QSettings settings;
        const QVariant stored = settings.value(key_);
        if (!stored.isValid() || !stored.canConvert<T>()) return default_;
        return stored.value<T>();
    }
    void setValue(const T& value) const
    {
        QSettings settings;
        settings.setValue(key_, QVariant::fromValue(value));
    }
    bool isSet() const { return QSettings().contains(key_); }
    const QString& key() const { return key_; }
    const T& defaultValue() const { return default_; }

private:
    QString key_;
    T default_;
};

}  // namespace qkv::ui

#pragma once
// Reading a JSON object's fields, each message naming the field it reads ("config.heads: must be
// a whole number between 1 and 1048576"). Internal to core/session: the config, the trained
// model and the other sections of a session read their fields with it, so that every file reader
// says the same things in the same words. The first problem is kept; later ones are ignored.

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "core/common/enum_names.hpp"

namespace qkv {

struct JsonFields {
    const nlohmann::json& json;
    std::string prefix;  // "config.", "model.spec."
    std::string error;

    const nlohmann::json* find(const char* key) const
    {
        const auto found = json.find(key);
        return found == json.end() || found->is_null() ? nullptr : &*found;
    }
    void fail(const char* key, const std::string& what)
    {
        if (error.empty()) error = prefix + key + ": " + what;
    }
    // Fields a section cannot do without (a default would describe another model).
    void require(std::initializer_list<const char*> keys)
    {
        for (const char* key : keys)
            if (!find(key)) fail(key, "missing");
    }
    void text(const char* key, std::string& into)
    {
        if (const nlohmann::json* v = find(key)) {
            if (v->is_string())
                into = v->get<std::string>();
            else
                fail(key, "must be a string");
        }
    }
    template <class Integer>
    void integer(const char* key, Integer& into, long long low, long long high)
    {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (v->is_number_unsigned() && v->get<unsigned long long>() <= static_cast<unsigned long long>(high))
            into = static_cast<Integer>(v->get<unsigned long long>());
        else if (v->is_number_integer() && v->get<long long>() >= low && v->get<long long>() <= high)
            into = static_cast<Integer>(v->get<long long>());
        else
            fail(key, "must be a whole number between " + std::to_string(low) + " and " + std::to_string(high));
    }
    void seed(const char* key, std::uint64_t& into)
    {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (v->is_number_unsigned())
            into = v->get<std::uint64_t>();
        else if (v->is_number_integer() && v->get<long long>() >= 0)
            into = static_cast<std::uint64_t>(v->get<long long>());
        else
            fail(key, "must be a whole number from 0 to 18446744073709551615");
    }
    template <class Floating>
    void number(const char* key, Floating& into)
    {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (v->is_number() && std::isfinite(v->get<double>()))
            into = static_cast<Floating>(v->get<double>());
        else
            fail(key, "must be a finite number");
    }
    // A finite number in [low, high] (`openLow`: above low).
    void number(const char* key, double& into, double low, double high, bool openLow = false)
    {
        const nlohmann::json* v = find(key);
        if (!v) return;
        const double value = v->is_number() ? v->get<double>() : std::nan("");
        if (std::isfinite(value) && (openLow ? value > low : value >= low) && value <= high)
            into = value;
        else
            fail(key, std::string("must be a number ") + (openLow ? "above " : "from ") + shortText(low) + " to " +
                          shortText(high));
    }
    void flag(const char* key, bool& into)
    {
        if (const nlohmann::json* v = find(key)) {
            if (v->is_boolean())
                into = v->get<bool>();
            else
                fail(key, "must be true or false");
        }
    }
    // A name from one of the spelling tables (core/common/enum_names.hpp).
    template <class Table>
    void choice(const char* key, TableEnum<Table>& into, const Table& names)
    {
        const nlohmann::json* v = find(key);
        if (!v) return;
        if (!v->is_string()) return fail(key, "must be one of " + allowedNames(names));
        const std::string name = v->get<std::string>();
        if (!parseName(names, name, into)) fail(key, "'" + name + "' is not one of " + allowedNames(names));
    }

private:
    static std::string shortText(double value)
    {
        const nlohmann::json number = value;
        return number.dump();
    }
};

}  // namespace qkv

use serde_json::{json, Value};

use super::misfit;

fn fits(schema: Value, input: Value) -> bool {
    misfit(Some(&schema), &input).is_none()
}

#[test]
fn arguments_are_an_object() {
    assert_eq!(misfit(None, &json!({"city": "Paris"})), None);
    assert_eq!(misfit(None, &json!(["Paris"])).unwrap(), "the arguments are an array, not an object");
    assert!(misfit(Some(&json!({})), &json!("Paris")).is_some());
}

#[test]
fn types_required_and_additional_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 14}},
        "required": ["city"],
        "additionalProperties": false
    });
    assert!(fits(schema.clone(), json!({"city": "Paris"})));
    assert!(fits(schema.clone(), json!({"city": "Paris", "days": 3})));
    assert!(fits(schema.clone(), json!({"city": "Paris", "days": 3.0})));
    assert_eq!(
        misfit(Some(&schema), &json!({"days": 3})).unwrap(),
        "the required property \"city\" is missing"
    );
    assert_eq!(
        misfit(Some(&schema), &json!({"city": 7})).unwrap(),
        "at /city: expected string, got a number"
    );
    assert_eq!(
        misfit(Some(&schema), &json!({"city": "Paris", "days": 2.5})).unwrap(),
        "at /days: expected integer, got a number"
    );
    assert_eq!(
        misfit(Some(&schema), &json!({"city": "Paris", "days": 30})).unwrap(),
        "at /days: 30 is outside the schema's bounds"
    );
    assert_eq!(
        misfit(Some(&schema), &json!({"city": "Paris", "unit": "C"})).unwrap(),
        "at /unit: the schema admits no such property"
    );
    // Without additionalProperties: false, an unknown key is admitted.
    assert!(fits(json!({"properties": {"city": {"type": "string"}}}), json!({"city": "x", "unit": "C"})));
}

#[test]
fn enums_consts_and_combinators() {
    let unit = json!({"properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}});
    assert!(fits(unit.clone(), json!({"unit": "celsius"})));
    assert!(!fits(unit, json!({"unit": "kelvin"})));
    assert!(fits(json!({"properties": {"n": {"const": 1}}}), json!({"n": 1.0})));
    let any = json!({"properties": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}});
    assert!(fits(any.clone(), json!({"id": 4})));
    assert!(!fits(any, json!({"id": true})));
    let one = json!({"properties": {"n": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}});
    assert!(fits(one.clone(), json!({"n": 1.5})));
    assert!(!fits(one, json!({"n": 1})), "an integer fits both branches");
    assert!(!fits(json!({"properties": {"n": {"not": {"type": "string"}}}}), json!({"n": "x"})));
    assert!(fits(json!({"allOf": [{"required": ["a"]}, {"required": ["b"]}]}), json!({"a": 1, "b": 2})));
    assert!(!fits(json!({"allOf": [{"required": ["a"]}, {"required": ["b"]}]}), json!({"a": 1})));
}

#[test]
fn nullable_arrays_strings_and_tuples() {
    assert!(fits(json!({"properties": {"q": {"type": "string", "nullable": true}}}), json!({"q": null})));
    assert!(fits(json!({"properties": {"q": {"type": ["string", "null"]}}}), json!({"q": null})));
    let tags = json!({"properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}}});
    assert!(fits(tags.clone(), json!({"tags": ["a", "bcd"]})));
    assert_eq!(
        misfit(Some(&tags), &json!({"tags": ["a", "bcde"]})).unwrap(),
        "at /tags/1: 4 characters is outside the schema's bounds"
    );
    assert!(!fits(tags, json!({"tags": ["a", "b", "c"]})));
    // Code points, not UTF-16 units or bytes.
    assert!(fits(json!({"properties": {"s": {"maxLength": 2}}}), json!({"s": "😀é"})));
    let pair = json!({"properties": {"p": {"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}}});
    assert!(fits(pair.clone(), json!({"p": ["a", 1]})));
    assert!(!fits(pair.clone(), json!({"p": [1, "a"]})));
    assert!(!fits(pair, json!({"p": ["a", 1, 2]})));
    assert!(fits(json!({"properties": {"p": {"items": [{"type": "string"}]}}}), json!({"p": ["a", 3]})));
}

#[test]
fn local_references_and_their_circles() {
    let schema = json!({
        "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        "properties": {"from": {"$ref": "#/$defs/place"}, "to": {"$ref": "#/definitions/missing"}}
    });
    assert!(fits(schema.clone(), json!({"from": {"city": "Paris"}})));
    assert!(!fits(schema.clone(), json!({"from": {}})));
    assert_eq!(
        misfit(Some(&schema), &json!({"to": 1})).unwrap(),
        "at /to: the schema's $ref does not resolve here"
    );
    // A tree: the root refers to itself one level down.
    let tree = json!({"properties": {"name": {"type": "string"}, "children": {"items": {"$ref": "#"}}}});
    assert!(fits(tree.clone(), json!({"name": "a", "children": [{"name": "b", "children": []}]})));
    assert!(!fits(tree, json!({"name": "a", "children": [{"name": 2}]})));
    // A circle that reads no deeper is refused, not followed forever.
    let circle =
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    assert!(!fits(circle, json!({})));
    // Branches that refer back to their own schema: refused within the step budget.
    let branching = json!({"$defs": {"x": {"anyOf": [{"$ref": "#/$defs/x"}, {"$ref": "#/$defs/x"}]}}, "$ref": "#/$defs/x"});
    assert!(!fits(branching, json!({})));
}

#[test]
fn what_it_does_not_know_constrains_nothing() {
    assert!(fits(
        json!({"properties": {"s": {"type": "string", "pattern": "^x$", "format": "email"}}}),
        json!({"s": "y"})
    ));
    assert!(fits(json!({"properties": {"s": {"type": "decimal"}}}), json!({"s": "y"})));
    assert!(fits(json!(true), json!({})));
    assert!(!fits(json!(false), json!({})));
    assert!(fits(json!({"properties": {"n": {"minimum": 0, "exclusiveMinimum": true}}}), json!({"n": 1})));
    assert!(!fits(json!({"properties": {"n": {"minimum": 0, "exclusiveMinimum": true}}}), json!({"n": 0})));
    assert!(!fits(json!({"properties": {"n": {"multipleOf": 0.5}}}), json!({"n": 0.3})));
    assert!(fits(json!({"properties": {"n": {"multipleOf": 0.1}}}), json!({"n": 0.3})));
}

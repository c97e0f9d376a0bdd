//! The functions registered in a DataFusion session: `recs_score_key` (a scalar UDF) and
//! `recs_user_part` (an aggregate UDF). Neither holds per-query state, so a remote
//! executor registers them once, at start.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Literal;
use recs_metrics::stream::{CatalogUser, Evaluator, Part};

use crate::settings::Settings;

/// `recs_score_key(score)`: the order-preserving key of an `f32` score
/// ([`recs_metrics::score_key`]; `NULL`, a missing score, is `NaN`'s key, 0). Grouping
/// pairs by it gives the tie groups of the pooled ROC.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct ScoreKey {
    signature: Signature,
}

impl ScoreKey {
    pub(crate) fn new() -> Self {
        ScoreKey { signature: Signature::exact(vec![DataType::Float32], Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for ScoreKey {
    fn name(&self) -> &str {
        "recs_score_key"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::UInt32)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scores = args.args[0].clone().into_array(args.number_rows)?;
        let scores = scores.as_primitive::<Float32Type>();
        let keys: UInt32Array = (0..scores.len())
            .map(|k| {
                let score = if scores.is_null(k) { f32::NAN } else { scores.value(k) };
                Some(recs_metrics::score_key(score))
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(keys)))
    }
}

/// `recs_user_part(item, score, grade, settings)`, grouped by user: the user's candidates
/// evaluated into a [`Part`], serialised (bincode). `settings` is a string literal
/// ([`Settings`]): the metrics and options, and how the qrels' items are ordered. The
/// function holds no state of its own, so a Ballista executor that registered it
/// evaluates a plan it receives exactly as the driver's session would.
///
/// The partial state is the user's candidates themselves, so partitions merge by
/// concatenation and the result does not depend on how rows were split. Candidates are
/// put in the qrels' item order before evaluation, so sums within a user run in the same
/// order as in-process.
#[derive(Debug)]
pub(crate) struct UserPart {
    signature: Signature,
    /// The last settings parsed, with their evaluator: one query uses one literal.
    parsed: Mutex<Option<(String, Arc<Parsed>)>>,
}

/// Settings read from their literal, with the evaluator they configure.
#[derive(Debug)]
struct Parsed {
    settings: Settings,
    evaluator: Evaluator,
}

impl UserPart {
    pub(crate) fn new() -> Self {
        UserPart { signature: Signature::any(4, Volatility::Immutable), parsed: Mutex::new(None) }
    }

    /// The settings of a call, from its fourth argument (a string literal).
    fn parsed(&self, literal: &dyn PhysicalExpr) -> Result<Arc<Parsed>> {
        let text = match literal.downcast_ref::<Literal>().map(Literal::value) {
            Some(
                ScalarValue::Utf8(Some(text))
                | ScalarValue::LargeUtf8(Some(text))
                | ScalarValue::Utf8View(Some(text)),
            ) => text,
            _ => {
                return Err(DataFusionError::Plan(
                    "recs_user_part: the fourth argument must be a settings string literal".into(),
                ));
            }
        };
        let mut last = self.parsed.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some((cached, parsed)) = last.as_ref()
            && cached.as_str() == text.as_str()
        {
            return Ok(parsed.clone());
        }
        let settings: Settings = text.parse()?;
        let evaluator = settings.evaluator()?;
        let parsed = Arc::new(Parsed { settings, evaluator });
        *last = Some((text.clone(), parsed.clone()));
        Ok(parsed)
    }
}

// Stateless but for a cache: every instance computes the same function.
impl PartialEq for UserPart {
    fn eq(&self, other: &Self) -> bool {
        self.signature == other.signature
    }
}

impl Eq for UserPart {}

impl Hash for UserPart {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl AggregateUDFImpl for UserPart {
    fn name(&self) -> &str {
        "recs_user_part"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let parsed = self.parsed(args.exprs[3].as_ref())?;
        Ok(Box::new(Candidates { parsed, rows: Rows::default() }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(format!("{}[candidates]", args.name), DataType::Binary, true))])
    }
}

/// One user's candidates: `(item id, score, grade)`; a `NULL` score is `NaN` (missing).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Rows {
    items: Vec<String>,
    scores: Vec<f32>,
    grades: Vec<f32>,
}

#[derive(Debug)]
struct Candidates {
    parsed: Arc<Parsed>,
    rows: Rows,
}

fn encode<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| DataFusionError::Execution(format!("encoding a partial state: {e}")))
}

/// A value of `recs_user_part` (or of its state) read back.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map(|(value, _)| value)
        .map_err(|e| DataFusionError::Execution(format!("decoding a partial state: {e}")))
}

impl Accumulator for Candidates {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let items = cast(&values[0], &DataType::Utf8)?;
        let items = items.as_string::<i32>();
        let scores = cast(&values[1], &DataType::Float32)?;
        let scores = scores.as_primitive::<Float32Type>();
        let grades = cast(&values[2], &DataType::Float32)?;
        let grades = grades.as_primitive::<Float32Type>();
        for k in 0..items.len() {
            if items.is_null(k) || grades.is_null(k) {
                return Err(DataFusionError::Execution(
                    "a qrels row without an item or a grade".into(),
                ));
            }
            self.rows.items.push(items.value(k).to_string());
            self.rows.scores.push(if scores.is_null(k) { f32::NAN } else { scores.value(k) });
            self.rows.grades.push(grades.value(k));
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let states = states[0].as_binary::<i32>();
        for k in (0..states.len()).filter(|&k| !states.is_null(k)) {
            let other: Rows = decode(states.value(k))?;
            self.rows.items.extend(other.items);
            self.rows.scores.extend(other.scores);
            self.rows.grades.extend(other.grades);
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(encode(&self.rows)?))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let part = evaluate_user(&self.rows, &self.parsed)?;
        Ok(ScalarValue::Binary(Some(encode(&part)?)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.rows.items.iter().map(|s| s.capacity() + 24).sum::<usize>()
            + 8 * self.rows.scores.capacity()
    }
}

/// One user's part: candidates in the qrels' item order, evaluated.
fn evaluate_user(rows: &Rows, parsed: &Parsed) -> Result<Part> {
    let mut order: Vec<usize> = (0..rows.items.len()).collect();
    let ids = &rows.items;
    if parsed.settings.numeric_items {
        let mut values = Vec::with_capacity(ids.len());
        for id in ids {
            values.push(id.parse::<i64>().map_err(|_| {
                DataFusionError::Execution(format!(
                    "item `{id}` is not an integer, but the settings say every qrels item is"
                ))
            })?);
        }
        // `IdMap::from_ids_sorted`'s order: by value, then by bytes.
        order.sort_unstable_by(|&a, &b| values[a].cmp(&values[b]).then(ids[a].cmp(&ids[b])));
    } else {
        order.sort_unstable_by(|&a, &b| ids[a].cmp(&ids[b]));
    }
    if let Some(w) = order.windows(2).find(|w| ids[w[0]] == ids[w[1]]) {
        return Err(DataFusionError::Execution(format!(
            "item `{}` is listed twice for one user (in the qrels or in the run)",
            ids[w[0]]
        )));
    }
    let scores: Vec<f32> = order.iter().map(|&k| rows.scores[k]).collect();
    let (mut graded, mut grades) = (Vec::new(), Vec::new());
    for (position, &k) in order.iter().enumerate() {
        let grade = rows.grades[k];
        if !(grade.is_finite() && grade >= 0.0) {
            return Err(DataFusionError::Execution(format!(
                "grade `{grade}` is not a number >= 0"
            )));
        }
        if grade > 0.0 {
            graded.push(position as u32);
            grades.push(grade);
        }
    }
    let user =
        CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &graded, grades: &grades };
    let mut part = parsed.evaluator.part();
    parsed
        .evaluator
        .push_user(&mut part, &user)
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(part)
}

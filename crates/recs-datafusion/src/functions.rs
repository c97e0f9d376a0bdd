//! The functions registered in a DataFusion session: `recs_score_key` (a scalar UDF) and
//! `recs_user_part` (an aggregate UDF).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature,
    Volatility,
};
use recs_core::IdMap;
use recs_metrics::stream::{CatalogUser, Evaluator, Part};

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

/// `recs_user_part(item, score, grade)`, grouped by user: the user's candidates evaluated
/// by `evaluator` into a [`Part`], serialised (bincode). The partial state is the user's
/// candidates themselves, so partitions merge by concatenation and the result does not
/// depend on how rows were split. Candidates are put in the qrels' item order (`items`)
/// before evaluation, so sums within a user run in the same order as in-process.
#[derive(Debug)]
pub(crate) struct UserPart {
    signature: Signature,
    items: Arc<IdMap>,
    evaluator: Arc<Evaluator>,
}

impl UserPart {
    pub(crate) fn new(items: Arc<IdMap>, evaluator: Arc<Evaluator>) -> Self {
        UserPart { signature: Signature::any(3, Volatility::Immutable), items, evaluator }
    }
}

// One registered instance per session: identity is the shared state's.
impl PartialEq for UserPart {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.items, &other.items) && Arc::ptr_eq(&self.evaluator, &other.evaluator)
    }
}

impl Eq for UserPart {}

impl Hash for UserPart {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
        Arc::as_ptr(&self.items).hash(state);
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

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(Candidates {
            items: self.items.clone(),
            evaluator: self.evaluator.clone(),
            rows: Rows::default(),
        }))
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
    items: Arc<IdMap>,
    evaluator: Arc<Evaluator>,
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
        let part = evaluate_user(&self.rows, &self.items, &self.evaluator)?;
        Ok(ScalarValue::Binary(Some(encode(&part)?)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.rows.items.iter().map(|s| s.capacity() + 24).sum::<usize>()
            + 8 * self.rows.scores.capacity()
    }
}

/// One user's part: candidates in the qrels' item order, evaluated.
fn evaluate_user(rows: &Rows, items: &IdMap, evaluator: &Evaluator) -> Result<Part> {
    let mut order = Vec::with_capacity(rows.items.len());
    for (k, id) in rows.items.iter().enumerate() {
        let item = items.get(id).ok_or_else(|| {
            DataFusionError::Execution(format!("item `{id}` is not a qrels item"))
        })?;
        order.push((item, k));
    }
    order.sort_unstable();
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        let id = &rows.items[w[0].1];
        return Err(DataFusionError::Execution(format!(
            "item `{id}` is listed twice for one user (in the qrels or in the run)"
        )));
    }
    let scores: Vec<f32> = order.iter().map(|&(_, k)| rows.scores[k]).collect();
    let (mut graded, mut grades) = (Vec::new(), Vec::new());
    for (position, &(_, k)) in order.iter().enumerate() {
        let grade = rows.grades[k];
        if !(grade.is_finite() && grade >= 0.0) {
            return Err(DataFusionError::Execution(format!("grade `{grade}` is not a number >= 0")));
        }
        if grade > 0.0 {
            graded.push(position as u32);
            grades.push(grade);
        }
    }
    let user = CatalogUser { user: 0, scores: &scores, excluded: &[], graded: &graded, grades: &grades };
    let mut part = evaluator.part();
    evaluator.push_user(&mut part, &user).map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(part)
}

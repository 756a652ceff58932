async function findUser(db, name) {
  return db.query(`SELECT * FROM users WHERE name = '${name}'`);
}
function byId(pool, id) {
  const sql = "SELECT * FROM users WHERE id = " + id;
  return pool.query(sql);
}
module.exports = { findUser, byId };

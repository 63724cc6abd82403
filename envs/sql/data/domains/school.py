"""``school``: a college's departments, teachers, courses, rooms, students and enrollments."""

from __future__ import annotations

import random
import sqlite3
from datetime import date

from ..common import email_for, insert_rows, iso_date, maybe, person_name, random_date
from ..templates import t

DB_ID = "school"

SCHEMA = """
CREATE TABLE departments (
    department_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    building TEXT NOT NULL
);
CREATE TABLE teachers (
    teacher_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    department_id INTEGER NOT NULL REFERENCES departments (department_id),
    hire_date TEXT NOT NULL
);
CREATE TABLE courses (
    course_id INTEGER PRIMARY KEY,
    code TEXT NOT NULL,
    title TEXT NOT NULL,
    department_id INTEGER NOT NULL REFERENCES departments (department_id),
    credits INTEGER NOT NULL,
    teacher_id INTEGER REFERENCES teachers (teacher_id)
);
CREATE TABLE classrooms (
    room_id INTEGER PRIMARY KEY,
    building TEXT NOT NULL,
    room_number TEXT NOT NULL,
    capacity INTEGER NOT NULL
);
CREATE TABLE schedule (
    course_id INTEGER NOT NULL REFERENCES courses (course_id),
    room_id INTEGER NOT NULL REFERENCES classrooms (room_id),
    weekday TEXT NOT NULL,
    start_time TEXT NOT NULL,
    PRIMARY KEY (course_id, weekday)
);
CREATE TABLE students (
    student_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    birth_date TEXT NOT NULL,
    enrollment_year INTEGER NOT NULL,
    major_id INTEGER REFERENCES departments (department_id)
);
CREATE TABLE enrollments (
    student_id INTEGER NOT NULL REFERENCES students (student_id),
    course_id INTEGER NOT NULL REFERENCES courses (course_id),
    year INTEGER NOT NULL,
    semester TEXT NOT NULL,
    score INTEGER,
    PRIMARY KEY (student_id, course_id, year, semester)
);
"""

_DEPARTMENTS = (  # name, building, course titles
    ("Mathematics", "Euler Hall", ("Calculus I", "Calculus II", "Linear Algebra", "Statistics",
                                   "Discrete Mathematics", "Number Theory")),
    ("Computer Science", "Turing Hall", ("Intro to Programming", "Data Structures", "Algorithms",
                                         "Databases", "Operating Systems", "Machine Learning")),
    ("Physics", "Curie Hall", ("Mechanics", "Electromagnetism", "Quantum Physics",
                               "Thermodynamics")),
    ("Biology", "Darwin Hall", ("Cell Biology", "Genetics", "Ecology", "Microbiology")),
    ("History", "Gibbon Hall", ("World History", "Ancient Rome", "Modern Europe",
                                "History of Science")),
    ("Economics", "Smith Hall", ("Microeconomics", "Macroeconomics", "Econometrics",
                                 "Game Theory")),
    ("Literature", "Austen Hall", ("Poetry", "The Novel", "Shakespeare", "Creative Writing")),
    ("Music", "Bach Hall", ("Music Theory", "Composition", "Jazz History")),
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_TERMS = ((2022, "fall"), (2023, "spring"), (2023, "fall"), (2024, "spring"))


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    insert_rows(conn, "departments", [(i + 1, d[0], d[1]) for i, d in enumerate(_DEPARTMENTS)])
    teachers = []
    for tid in range(1, 41):
        first, last = person_name(rng)
        teachers.append((tid, first, last, email_for(first, last, tid, "college.example"),
                         (tid - 1) % 8 + 1,
                         iso_date(random_date(rng, date(1995, 1, 1), date(2023, 8, 1)))))
    insert_rows(conn, "teachers", teachers)
    courses: list[tuple] = []
    for d, (_, _, titles) in enumerate(_DEPARTMENTS):
        staff = [t_[0] for t_ in teachers if t_[4] == d + 1]
        for k, title in enumerate(titles):
            teacher = rng.choice(staff) if rng.random() > 0.08 else None
            if (len(courses) + 1) % 9 == 0:  # a few courses are taught from another department
                teacher = rng.choice([t_[0] for t_ in teachers if t_[4] == (d + 1) % 8 + 1])
            prefix = "".join(w[0] for w in _DEPARTMENTS[d][0].split()).upper()
            courses.append((len(courses) + 1, f"{prefix}{100 + 10 * k + d}", title, d + 1,
                            rng.choice([2, 3, 3, 4, 4, 5, 6]), teacher))
    insert_rows(conn, "courses", courses)
    rooms: list[tuple] = []
    for _, building, _ in _DEPARTMENTS:
        for k in range(rng.randint(1, 3)):
            rooms.append((len(rooms) + 1, building, f"{k + 1}{rng.randint(0, 2)}{k + 1}",
                          rng.choice([20, 25, 30, 40, 60, 80, 120, 200])))
    insert_rows(conn, "classrooms", rooms)
    schedule = []
    for course in courses:
        dept_rooms = [r[0] for r in rooms if r[1] == _DEPARTMENTS[course[3] - 1][1]]
        for day in rng.sample(_WEEKDAYS, k=rng.choice([1, 2, 2, 3])):
            room = rng.choice(dept_rooms) if rng.random() < 0.85 else rng.choice(rooms)[0]
            schedule.append((course[0], room, day, f"{rng.choice([8, 9, 10, 11, 13, 14, 15])}:00"))
    insert_rows(conn, "schedule", schedule)
    students = []
    for sid in range(1, 351):
        first, last = person_name(rng)
        year = rng.choice([2019, 2020, 2021, 2021, 2022, 2022, 2023, 2023, 2023])
        born = random_date(rng, date(year - 21, 1, 1), date(year - 17, 12, 31))
        major = maybe(rng, rng.choices(range(1, 9), weights=[5, 9, 3, 4, 2, 5, 2, 1])[0], 0.12)
        students.append((sid, first, last, email_for(first, last, sid, "students.example"),
                         iso_date(born), year, major))
    insert_rows(conn, "students", students)
    enrollments: dict[tuple, tuple] = {}  # first enrollment per (student, course, term) wins
    for student in students:
        skill = rng.gauss(72, 10)
        for _ in range(rng.randint(0, 12)):
            course = rng.choice(courses)
            terms = [tm for tm in _TERMS if tm[0] >= student[5]] or [_TERMS[-1]]
            year, semester = rng.choice(terms)
            score = None if (year, semester) == (2024, "spring") else max(
                0, min(100, round(rng.gauss(skill, 12)))
            )
            key = (student[0], course[0], year, semester)
            enrollments.setdefault(key, (*key, score))
    insert_rows(conn, "enrollments", [enrollments[k] for k in sorted(enrollments)])


TEMPLATES = [
    t("easy", "How many students enrolled in {year}?",
      "SELECT COUNT(*) FROM students WHERE enrollment_year = {year}",
      year="SELECT enrollment_year FROM students"),
    t("easy", "What is the e-mail address of the teacher {first} {last}?",
      "SELECT email FROM teachers WHERE first_name = {first} AND last_name = {last}", count=2,
      first="SELECT first_name FROM teachers",
      last="SELECT last_name FROM teachers WHERE first_name = {first}"),
    t("easy", "List the titles of the courses worth {c} credits.",
      "SELECT title FROM courses WHERE credits = {c}", count=2,
      c="SELECT credits FROM courses"),
    t("easy", "How many students have not declared a major?",
      "SELECT COUNT(*) FROM students WHERE major_id IS NULL"),
    t("easy", "Which classrooms hold at least {n} people? Give the building and room number.",
      "SELECT building, room_number FROM classrooms WHERE capacity >= {n}", count=2,
      n="SELECT 60 UNION SELECT 80 UNION SELECT 120"),
    t("easy", "How many courses have no teacher assigned?",
      "SELECT COUNT(*) FROM courses WHERE teacher_id IS NULL"),
    t("easy", "What is the highest score recorded in any enrollment?",
      "SELECT MAX(score) FROM enrollments"),
    t("easy", "List the codes and titles of all courses, ordered by code.",
      "SELECT code, title FROM courses ORDER BY code"),
    t("easy", "What is the average score of the graded enrollments of the {semester} {year} "
      "semester, rounded to 2 decimals?",
      "SELECT ROUND(AVG(score), 2) FROM enrollments WHERE year = {year} "
      "AND semester = {semester}", count=2,
      year="SELECT year FROM enrollments WHERE score IS NOT NULL",
      semester="SELECT semester FROM enrollments WHERE year = {year} AND score IS NOT NULL"),
    t("easy", "How many students were born in {year}?",
      "SELECT COUNT(*) FROM students WHERE substr(birth_date, 1, 4) = {year}", count=2,
      year="SELECT substr(birth_date, 1, 4) FROM students"),
    t("easy", "Give the first and last names of the students whose last name starts with "
      "'{letter}'.",
      "SELECT first_name, last_name FROM students WHERE last_name LIKE {letter} || '%'",
      count=2, letter="SELECT substr(last_name, 1, 1) FROM students"),
    t("easy", "For each building, what is the total capacity of its classrooms?",
      "SELECT building, SUM(capacity) FROM classrooms GROUP BY building"),
    t("easy", "How many enrollments does each semester have? Give year, semester and count.",
      "SELECT year, semester, COUNT(*) FROM enrollments GROUP BY year, semester"),
    t("easy", "How many courses are worth more than {c} credits?",
      "SELECT COUNT(*) FROM courses WHERE credits > {c}", count=2,
      c="SELECT 2 UNION SELECT 3 UNION SELECT 4"),
    t("medium", "Which courses meet on {day}? Give their distinct codes.",
      "SELECT DISTINCT c.code FROM courses c JOIN schedule s ON s.course_id = c.course_id "
      "WHERE s.weekday = {day}", count=2, day="SELECT weekday FROM schedule"),
    t("medium", "How many distinct students have taken the course '{title}'?",
      "SELECT COUNT(DISTINCT e.student_id) FROM enrollments e JOIN courses c "
      "ON c.course_id = e.course_id WHERE c.title = {title}", count=2,
      title="SELECT title FROM courses"),
    t("medium", "For each department, give its name and the number of courses it offers.",
      "SELECT d.name, COUNT(*) FROM departments d JOIN courses c "
      "ON c.department_id = d.department_id GROUP BY d.department_id, d.name"),
    t("medium", "List the titles of the courses taught by the teacher with e-mail {email}.",
      "SELECT c.title FROM courses c JOIN teachers t ON t.teacher_id = c.teacher_id "
      "WHERE t.email = {email}", count=2,
      email="SELECT t.email FROM teachers t JOIN courses c ON c.teacher_id = t.teacher_id"),
    t("medium", "For each course with at least {n} graded enrollments, give its title and "
      "average score rounded to 2 decimals.",
      "SELECT c.title, ROUND(AVG(e.score), 2) FROM courses c JOIN enrollments e "
      "ON e.course_id = c.course_id WHERE e.score IS NOT NULL GROUP BY c.course_id, c.title "
      "HAVING COUNT(*) >= {n}", count=2, n="SELECT 30 UNION SELECT 35 UNION SELECT 40"),
    t("medium", "Which students majoring in {dept} enrolled in {year}? Give their first and "
      "last names.",
      "SELECT s.first_name, s.last_name FROM students s JOIN departments d "
      "ON d.department_id = s.major_id WHERE d.name = {dept} AND s.enrollment_year = {year}",
      count=2,
      dept="SELECT d.name FROM departments d JOIN students s ON s.major_id = d.department_id",
      year="SELECT s.enrollment_year FROM students s JOIN departments d "
      "ON d.department_id = s.major_id WHERE d.name = {dept}"),
    t("medium", "How many credits has the student with e-mail {email} earned, counting only "
      "courses with a score of at least 50?",
      "SELECT SUM(c.credits) FROM enrollments e JOIN courses c ON c.course_id = e.course_id "
      "JOIN students s ON s.student_id = e.student_id WHERE s.email = {email} AND e.score >= 50",
      count=2,
      email="SELECT s.email FROM students s JOIN enrollments e ON e.student_id = s.student_id "
      "WHERE e.score >= 50"),
    t("medium", "Which teachers teach a course of a department other than their own? Give the "
      "teacher's first and last name and the course title.",
      "SELECT t.first_name, t.last_name, c.title FROM teachers t JOIN courses c "
      "ON c.teacher_id = t.teacher_id WHERE c.department_id <> t.department_id"),
    t("medium", "Which courses meet in a classroom of {building}? Give the distinct titles.",
      "SELECT DISTINCT c.title FROM courses c JOIN schedule s ON s.course_id = c.course_id "
      "JOIN classrooms r ON r.room_id = s.room_id WHERE r.building = {building}", count=2,
      building="SELECT building FROM classrooms"),
    t("medium", "For each major department, what is the average score of its students' graded "
      "enrollments, rounded to 2 decimals? Give the department name and the average.",
      "SELECT d.name, ROUND(AVG(e.score), 2) FROM departments d JOIN students s "
      "ON s.major_id = d.department_id JOIN enrollments e ON e.student_id = s.student_id "
      "GROUP BY d.department_id, d.name"),
    t("medium", "For each teacher who teaches a course, how many distinct students have they "
      "taught? Give the teacher's e-mail and the count.",
      "SELECT t.email, COUNT(DISTINCT e.student_id) FROM teachers t JOIN courses c "
      "ON c.teacher_id = t.teacher_id JOIN enrollments e ON e.course_id = c.course_id "
      "GROUP BY t.teacher_id, t.email"),
    t("hard", "Give the e-mail addresses of the students who have at least one graded course "
      "and never scored below 50.",
      "SELECT s.email FROM students s JOIN enrollments e ON e.student_id = s.student_id "
      "WHERE e.score IS NOT NULL EXCEPT SELECT s.email FROM students s JOIN enrollments e "
      "ON e.student_id = s.student_id WHERE e.score < 50"),
    t("hard", "For each major department, which student has the highest average score? Give "
      "the department name, the student's e-mail and the average rounded to 2 decimals "
      "(include ties).",
      "WITH avgs AS (SELECT s.major_id, s.email, AVG(e.score) AS avg_score FROM students s "
      "JOIN enrollments e ON e.student_id = s.student_id WHERE s.major_id IS NOT NULL "
      "AND e.score IS NOT NULL "
      "GROUP BY s.student_id, s.major_id, s.email), ranked AS (SELECT major_id, email, "
      "avg_score, RANK() OVER (PARTITION BY major_id ORDER BY avg_score DESC) AS rk FROM avgs) "
      "SELECT d.name, r.email, ROUND(r.avg_score, 2) FROM ranked r JOIN departments d "
      "ON d.department_id = r.major_id WHERE r.rk = 1"),
    t("hard", "Which courses have an average score above the average score of all graded "
      "enrollments? Give their titles.",
      "SELECT c.title FROM courses c JOIN enrollments e ON e.course_id = c.course_id "
      "GROUP BY c.course_id, c.title HAVING AVG(e.score) > (SELECT AVG(score) FROM enrollments)"),
    t("hard", "Give the e-mail addresses of the students who took a course of the {d1} "
      "department and also a course of the {d2} department.",
      "SELECT s.email FROM students s JOIN enrollments e ON e.student_id = s.student_id "
      "JOIN courses c ON c.course_id = e.course_id JOIN departments d "
      "ON d.department_id = c.department_id WHERE d.name = {d1} INTERSECT "
      "SELECT s.email FROM students s JOIN enrollments e ON e.student_id = s.student_id "
      "JOIN courses c ON c.course_id = e.course_id JOIN departments d "
      "ON d.department_id = c.department_id WHERE d.name = {d2}", count=2,
      d1="SELECT name FROM departments",
      d2="SELECT name FROM departments WHERE name > {d1}"),
    t("hard", "In the course '{title}', rank the graded enrollments by score, best first: give "
      "the student's e-mail, the year, the semester, the score and the rank (equal scores "
      "share a rank).",
      "SELECT s.email, e.year, e.semester, e.score, RANK() OVER (ORDER BY e.score DESC) "
      "FROM enrollments e JOIN students s ON s.student_id = e.student_id JOIN courses c "
      "ON c.course_id = e.course_id WHERE c.title = {title} AND e.score IS NOT NULL", count=2,
      title="SELECT title FROM courses"),
    t("hard", "Which teachers do not teach any course? Give their e-mail addresses.",
      "SELECT email FROM teachers WHERE teacher_id NOT IN "
      "(SELECT teacher_id FROM courses WHERE teacher_id IS NOT NULL)"),
    t("hard", "Which students have more enrollments than the average number of enrollments per "
      "enrolled student? Give their e-mail and their number of enrollments.",
      "WITH counts AS (SELECT student_id, COUNT(*) AS n FROM enrollments GROUP BY student_id) "
      "SELECT s.email, c.n FROM students s JOIN counts c ON c.student_id = s.student_id "
      "WHERE c.n > (SELECT AVG(n) FROM counts)"),
    t("hard", "For each enrollment year, give the year, the number of students who enrolled "
      "that year and the cumulative number up to that year, ordered by year.",
      "SELECT enrollment_year, COUNT(*), SUM(COUNT(*)) OVER (ORDER BY enrollment_year) "
      "FROM students GROUP BY enrollment_year ORDER BY enrollment_year"),
    t("hard", "Which student has earned the most credits from courses scored at least 50? Give "
      "the e-mail and the number of credits (include ties).",
      "WITH earned AS (SELECT e.student_id, SUM(c.credits) AS credits FROM enrollments e "
      "JOIN courses c ON c.course_id = e.course_id WHERE e.score >= 50 GROUP BY e.student_id) "
      "SELECT s.email, x.credits FROM earned x JOIN students s ON s.student_id = x.student_id "
      "WHERE x.credits = (SELECT MAX(credits) FROM earned)"),
    t("hard", "How many students have not taken any course?",
      "SELECT COUNT(*) FROM students WHERE student_id NOT IN "
      "(SELECT student_id FROM enrollments)"),
]
